import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ChatRig, deltaText, model, TEST_KEY } from './chat-harness.js';

const FIXTURES = [
  {
    match: { userMessage: 'hello' },
    response: {
      content: 'Hi there, friend! How can I help?',
      reasoning: 'The user greets me.',
      usage: { prompt_tokens: 12, completion_tokens: 9, input_tokens: 12, output_tokens: 9 },
    },
  },
  { match: { userMessage: 'plain' }, response: { content: 'Just text.' } },
];

for (const type of ['compat', 'native', 'responsemode'] as const) {
  describe(`chat over ${type}`, () => {
    let mock: Aimock;
    let relay: RecordingRelay;
    let rig: ChatRig;
    before(async () => {
      mock = await Aimock.start(FIXTURES, { chunkSize: 6 });
      relay = await RecordingRelay.start(mock.url);
      const baseUrl = type === 'native' ? relay.url : `${relay.url}/v1`;
      rig = await ChatRig.start([{ id: 'prov', type, base_url: baseUrl, models: [model('m1', { context_window: 100_000 })] }]);
    });
    after(async () => {
      await rig?.proc.stop();
      rig?.proc.cleanup();
      await relay?.stop();
      await mock?.stop();
    });

    it('streams thinking and text as numbered frames, stores them, and reports usage', async () => {
      const sid = await rig.newSession();
      const { turnId, frames, end } = await rig.turn(sid, 'hello');
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      assert.equal(end.stop_reason, 'end_turn');
      assert.deepEqual(
        frames.map((f) => f.seq),
        frames.map((_, i) => i + 1),
      );
      for (const f of frames) {
        assert.equal(f.workspace_id, rig.workspaceId);
        assert.equal(f.session_id, sid);
        assert.equal(f.turn_id, turnId);
      }
      const session0 = await rig.session(sid);
      assert.deepEqual(frames[0], {
        type: 'turn.started',
        model: 'prov:m1',
        user_message_id: session0.messages[0].id,
        parent_id: null,
        workspace_id: rig.workspaceId,
        session_id: sid,
        turn_id: turnId,
        seq: 1,
      });
      assert.equal(deltaText(frames), 'Hi there, friend! How can I help?');
      assert.ok(frames.filter((f) => f.type === 'turn.delta' && f.kind === 'text').length > 1, 'text arrives in several deltas');
      assert.equal(deltaText(frames, 'thinking'), 'The user greets me.');
      const usage = frames.find((f) => f.type === 'turn.usage');
      // Native reports cumulative usage (message_start, then message_delta): taken, not added.
      assert.equal(usage.input, 12);
      assert.equal(usage.output, 9);

      const session = await rig.session(sid);
      assert.equal(session.active_turn, null);
      assert.equal(session.title, 'hello');
      assert.equal(session.model, 'prov:m1');
      assert.equal(session.message_count, 2);
      assert.equal(session.usage.input, 12);
      const [user, reply] = session.messages;
      assert.deepEqual(user.blocks, [{ type: 'text', text: 'hello' }]);
      assert.equal(user.role, 'user');
      assert.equal(reply.role, 'assistant');
      assert.equal(reply.id, end.message_id);
      assert.deepEqual(reply.blocks, [
        { type: 'thinking', text: 'The user greets me.' },
        { type: 'text', text: 'Hi there, friend! How can I help?' },
      ]);
    });

    it('sends the protocol’s request shape with the key only in its header', async () => {
      relay.clear();
      const sid = await rig.newSession();
      await rig.turn(sid, 'plain');
      const req = relay.requests.find((r) => r.method === 'POST');
      assert.ok(req, 'a request reached the provider');
      const body = req.json;
      assert.equal(body.stream, true);
      assert.equal(body.model, 'm1');
      if (type === 'compat') {
        assert.equal(req.path, '/v1/chat/completions');
        assert.equal(req.headers.authorization, `Bearer ${TEST_KEY}`);
        assert.deepEqual(body.stream_options, { include_usage: true });
        assert.equal(body.messages[0].role, 'system');
        assert.deepEqual(body.messages.at(-1), { role: 'user', content: 'plain' });
        assert.equal(body.reasoning_effort, undefined);
      } else if (type === 'native') {
        assert.equal(req.path, '/v1/messages');
        assert.equal(req.headers['x-api-key'], TEST_KEY);
        assert.equal(req.headers['anthropic-version'], '2023-06-01');
        assert.equal(typeof body.max_tokens, 'number');
        assert.equal(body.system[0].type, 'text');
        assert.deepEqual(body.messages, [{ role: 'user', content: [{ type: 'text', text: 'plain' }] }]);
        assert.equal(body.thinking, undefined);
      } else {
        assert.equal(req.path, '/v1/responses');
        assert.equal(req.headers.authorization, `Bearer ${TEST_KEY}`);
        assert.equal(typeof body.instructions, 'string');
        assert.deepEqual(body.input, [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'plain' }] }]);
        assert.equal(body.reasoning, undefined);
      }
      assert.ok(!JSON.stringify(body).includes(TEST_KEY), 'the key is not in the body');
    });
  });
}
