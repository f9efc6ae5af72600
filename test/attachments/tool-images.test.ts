import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Aimock, type AimockFixture } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ChatRig, deltaText, model } from '../chat/chat-harness.js';
import { everythingStdio } from '../mcp/mcp-test-kit.js';

/** The id the mock provider gives its tool call; requests must carry it back (the backend's own call ids differ). */
const PROVIDER_CALL_ID = 'call_img';

const FIXTURES: AimockFixture[] = [
  // compat and responsemode: the image follows the tool output in a user message.
  { match: { userMessage: 'returned this image' }, response: { content: 'I see a tiny image.' } },
  { match: { userMessage: 'show tiny image', hasToolResult: true }, response: { content: 'I see a tiny image.' } },
  {
    match: { userMessage: 'show tiny image', hasToolResult: false },
    response: { toolCalls: [{ name: 'ev__get-tiny-image', arguments: '{}', id: PROVIDER_CALL_ID }] },
  },
];

/** MCP image content (server-everything's get-tiny-image) reaches a vision model as an image. */
describe('tool results with images', () => {
  let mock: Aimock;
  let relay: RecordingRelay;
  let rig: ChatRig;
  before(async () => {
    mock = await Aimock.start(FIXTURES);
    relay = await RecordingRelay.start(mock.url);
    const models = [model('m1', { supports_vision: true }), model('blind')];
    rig = await ChatRig.start([
      { id: 'c', type: 'compat', base_url: `${relay.url}/v1`, models },
      { id: 'n', type: 'native', base_url: relay.url, models },
      { id: 'r', type: 'responsemode', base_url: `${relay.url}/v1`, models },
    ]);
    await rig.ok('PUT', '/api/mcp/global', { mcpServers: { ev: everythingStdio({ approval: 'auto' }) } });
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await relay?.stop();
    await mock?.stop();
  });

  async function run(ref: string) {
    await rig.setProfile({ model: ref });
    const sid = await rig.newSession();
    relay.clear();
    const { frames, end } = await rig.turn(sid, 'show tiny image', 60_000);
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    assert.equal(deltaText(frames), 'I see a tiny image.');
    const result = frames.find((f) => f.type === 'turn.tool_result');
    return { sid, result, second: relay.requests.at(-1)!.json };
  }

  for (const protocol of ['c', 'n', 'r'] as const) {
    it(`${protocol}: the image is stored as an attachment and sent as an image`, async () => {
      const { sid, result, second } = await run(`${protocol}:m1`);
      assert.equal(result.attachments.length, 1);
      const att = result.attachments[0];
      assert.deepEqual(
        { type: att.type, mime: att.mime, name: att.name },
        { type: 'image', mime: 'image/png', name: 'get-tiny-image-1.png' },
      );
      const file = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', sid, 'attachments', att.attachment_id);
      const data = readFileSync(file).toString('base64');
      // The log holds the reference, never the base64.
      const log = readFileSync(path.join(file, '..', '..', 'events.jsonl'), 'utf8');
      assert.ok(!log.includes(data.slice(0, 60)));
      const stored = (await rig.session(sid)).messages.find((m: any) => m.role === 'tool');
      assert.deepEqual(stored.blocks[0].attachments, result.attachments);
      const url = `data:image/png;base64,${data}`;
      if (protocol === 'c') {
        const i = second.messages.findIndex((m: any) => m.role === 'tool');
        assert.equal(second.messages[i].tool_call_id, PROVIDER_CALL_ID);
        assert.equal(typeof second.messages[i].content, 'string');
        assert.deepEqual(second.messages[i + 1], {
          role: 'user',
          content: [
            { type: 'text', text: `The tool call ${PROVIDER_CALL_ID} returned this image:` },
            { type: 'image_url', image_url: { url } },
          ],
        });
      } else if (protocol === 'n') {
        const block = second.messages.at(-1).content.find((b: any) => b.type === 'tool_result');
        assert.deepEqual(block.content.slice(1), [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }]);
        assert.equal(block.content[0].type, 'text');
      } else {
        const i = second.input.findIndex((x: any) => x.type === 'function_call_output');
        assert.equal(typeof second.input[i].output, 'string');
        assert.deepEqual(second.input[i + 1], {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: `The tool call ${PROVIDER_CALL_ID} returned this image:` },
            { type: 'input_image', image_url: url },
          ],
        });
      }
    });
  }

  it('a model without vision gets a note instead of the image', async () => {
    const { second } = await run('n:blind');
    const block = second.messages.at(-1).content.find((b: any) => b.type === 'tool_result');
    assert.equal(typeof block.content, 'string');
    assert.match(block.content, /\[The tool also returned images the model cannot see: get-tiny-image-1\.png\]/);
  });
});
