import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ChatRig, model } from '../chat/chat-harness.js';
import { everythingStdio } from './mcp-test-kit.js';

const CHANGING = fileURLToPath(new URL('./fixtures/changing-tools-server.js', import.meta.url));
const NOTE = Buffer.from('meeting notes: ship on friday').toString('base64');

describe('MCP prompts and resources of a workspace (server-everything)', () => {
  let mock: Aimock;
  let relay: RecordingRelay;
  let rig: ChatRig;
  let base: string;
  before(async () => {
    mock = await Aimock.start([
      { match: { userMessage: 'summarise the attached doc' }, response: { content: 'Summarised.' } },
      { match: { userMessage: 'gzip my note', hasToolResult: true }, response: { content: 'Gzipped.' } },
      {
        match: { userMessage: 'gzip my note', hasToolResult: false },
        response: {
          toolCalls: [
            {
              name: 'ev__gzip-file-as-resource',
              arguments: { name: 'note.txt.gz', data: `data:text/plain;base64,${NOTE}`, outputType: 'resourceLink' },
            },
          ],
        },
      },
      { match: { userMessage: 'unlock it', hasToolResult: true }, response: { content: 'Unlocked.' } },
      { match: { userMessage: 'unlock it', hasToolResult: false }, response: { toolCalls: [{ name: 'ch__unlock', arguments: {} }] } },
    ]);
    relay = await RecordingRelay.start(mock.url);
    rig = await ChatRig.start([{ id: 'prov', type: 'compat', base_url: `${relay.url}/v1`, models: [model('m1')] }]);
    await rig.ok('PUT', '/api/mcp/global', {
      mcpServers: {
        ev: everythingStdio({ approval: 'auto' }),
        ch: { command: process.execPath, args: [CHANGING], approval: 'auto' },
      },
    });
    base = `/api/workspaces/${rig.workspaceId}/mcp`;
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await relay?.stop();
    await mock?.stop();
  });

  it('lists prompts with their arguments and renders one', async () => {
    const { prompts, problems } = await rig.ok('GET', `${base}/prompts`);
    assert.deepEqual(problems, []);
    const args = prompts.find((p: any) => p.server === 'ev' && p.name === 'args-prompt');
    assert.ok(args, JSON.stringify(prompts.map((p: any) => p.name)));
    assert.deepEqual(
      args.arguments.map((a: any) => [a.name, a.required]),
      [
        ['city', true],
        ['state', false],
      ],
    );
    assert.ok(prompts.some((p: any) => p.name === 'simple-prompt'));
    const got = await rig.ok('POST', `${base}/prompts/get`, { server: 'ev', name: 'args-prompt', arguments: { city: 'Paris' } });
    assert.deepEqual(got.messages, [{ role: 'user', text: "What's weather in Paris?" }]);
    const missing = await rig.call('POST', `${base}/prompts/get`, { server: 'ev', name: 'args-prompt', arguments: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.field, 'arguments');
    const nobody = await rig.call('POST', `${base}/prompts/get`, { server: 'nope', name: 'x' });
    assert.equal(nobody.status, 404);
    assert.equal(nobody.body.error.field, 'server');
  });

  it('a resource attached to a message is read at send time and stored with it', async () => {
    const { resources } = await rig.ok('GET', `${base}/resources`);
    const doc = resources.find((r: any) => r.server === 'ev' && r.uri.startsWith('demo://resource/static/document/'));
    assert.ok(doc, JSON.stringify(resources));
    assert.ok(doc.name && doc.mime);
    const sid = await rig.newSession();
    const watch = await rig.watch();
    const res = await rig.call('POST', rig.sessionsPath(`${sid}/messages`), {
      content: 'summarise the attached doc',
      resources: [{ server: 'ev', uri: doc.uri }],
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal((await watch.end(res.body.turn_id, 30_000)).type, 'turn.completed');
    watch.close();
    const session = await rig.session(sid);
    const user = session.messages.find((m: any) => m.id === res.body.message_id);
    assert.equal(user.blocks[0].text, 'summarise the attached doc');
    assert.match(user.blocks[1].text, new RegExp(`^<resource server="ev" uri="${doc.uri}" mime="${doc.mime}">\\n`));
    assert.ok(user.blocks[1].text.length > 200, 'the document itself is in the snapshot');
    const sent = JSON.stringify(relay.last('/chat/completions').json.messages.at(-1));
    assert.match(sent, /<resource server=\\"ev\\"/, 'the model sees the snapshot');

    const bad = await rig.call('POST', rig.sessionsPath(`${sid}/messages`), {
      content: 'x',
      resources: [{ server: 'nope', uri: doc.uri }],
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'resources[0].server');
  });

  it('resources a tool adds at run time are listed next time (resources list_changed)', async () => {
    const before = (await rig.ok('GET', `${base}/resources`)).resources.length;
    const { end } = await rig.turn(await rig.newSession(), 'gzip my note', 60_000);
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const { resources } = await rig.ok('GET', `${base}/resources`);
    assert.equal(resources.length, before + 1);
    assert.ok(
      resources.some((r: any) => r.name === 'note.txt.gz'),
      JSON.stringify(resources.slice(-2)),
    );
  });

  it('a tool added during a turn is offered in the next model request (tools list_changed)', async () => {
    relay.clear();
    const { end } = await rig.turn(await rig.newSession(), 'unlock it', 60_000);
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const [first, second] = relay.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'));
    const names = (req: any) => req.json.tools.map((t: any) => t.function.name);
    assert.ok(!names(first).includes('ch__secret-tool'));
    assert.ok(names(second).includes('ch__secret-tool'), names(second).join(', '));
  });
});
