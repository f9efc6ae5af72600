import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ChatRig, deltaText, model } from './chat-harness.js';

const ENTRY = fileURLToPath(new URL('./fixtures/tool-backend.js', import.meta.url));

const FIXTURES = [
  {
    match: { userMessage: 'read the file', hasToolResult: false },
    response: { reasoning: 'I should read it.', toolCalls: [{ name: 'fs__read_file', arguments: '{"path":"/tmp/a.txt"}' }] },
  },
  { match: { userMessage: 'read the file', hasToolResult: true }, response: { content: 'The file says hello.' } },
  {
    match: { userMessage: 'delete it', hasToolResult: false },
    response: { toolCalls: [{ name: 'fs__delete_file', arguments: '{"path":"/tmp/b.txt"}' }] },
  },
  { match: { userMessage: 'delete it', hasToolResult: true }, response: { content: 'Handled the deletion.' } },
  { match: { userMessage: 'loop' }, response: { toolCalls: [{ name: 'fs__read_file', arguments: '{"path":"/again"}' }] } },
];

for (const type of ['compat', 'native', 'responsemode'] as const) {
  describe(`tool round over ${type}`, () => {
    let mock: Aimock;
    let relay: RecordingRelay;
    let rig: ChatRig;
    before(async () => {
      mock = await Aimock.start(FIXTURES);
      relay = await RecordingRelay.start(mock.url);
      rig = await ChatRig.start(
        [{ id: 'prov', type, base_url: type === 'native' ? relay.url : `${relay.url}/v1`, models: [model('m1')] }],
        {
          start: { entry: ENTRY, args: ['-swap-port', 'off'] },
          profile: { thinking: { enabled: true, budget: 2048 }, tools: { max_steps: 2 } },
        },
      );
    });
    after(async () => {
      await rig?.proc.stop();
      rig?.proc.cleanup();
      await relay?.stop();
      await mock?.stop();
    });

    it('offers the tools, runs the call and returns the result in the protocol’s own shape', async () => {
      relay.clear();
      const sid = await rig.newSession();
      const { frames, end } = await rig.turn(sid, 'read the file');
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      const call = frames.find((f) => f.type === 'turn.tool_call');
      assert.deepEqual(
        { server: call.server, tool: call.tool, arguments: call.arguments, needs_approval: call.needs_approval },
        { server: 'fs', tool: 'read_file', arguments: { path: '/tmp/a.txt' }, needs_approval: false },
      );
      const result = frames.find((f) => f.type === 'turn.tool_result');
      assert.deepEqual({ call_id: result.call_id, ok: result.ok }, { call_id: call.call_id, ok: true });
      assert.match(result.content, /hello from the file/);
      assert.equal(deltaText(frames), 'The file says hello.');
      await rig.proc.waitForLine(/test-tools: call \S+ fs__read_file \{"path":"\/tmp\/a.txt"\}/);

      const [first, second] = relay.requests.filter((r) => r.method === 'POST');
      // Frames and stored blocks carry the backend's own id; requests carry the provider's.
      const id = call.call_id as string;
      let pid: string;
      if (type === 'compat') {
        assert.deepEqual(first.json.tools[0], {
          type: 'function',
          function: { name: 'fs__read_file', description: 'Read a file.', parameters: first.json.tools[0].function.parameters },
        });
        const msgs = second.json.messages;
        const assistant = msgs.find((m: any) => m.role === 'assistant');
        pid = assistant.tool_calls[0].id;
        assert.deepEqual(assistant.tool_calls, [
          { id: pid, type: 'function', function: { name: 'fs__read_file', arguments: '{"path":"/tmp/a.txt"}' } },
        ]);
        assert.deepEqual(msgs.at(-1), { role: 'tool', tool_call_id: pid, content: result.content });
      } else if (type === 'native') {
        assert.equal(first.json.tools[0].name, 'fs__read_file');
        assert.equal(first.json.tools[0].input_schema.type, 'object');
        assert.equal(first.json.thinking.type, 'enabled');
        const [, assistant, results] = second.json.messages;
        // Thinking goes back unchanged, with its signature, in the turn that carries the tool_use.
        assert.deepEqual(assistant.content[0], {
          type: 'thinking',
          thinking: 'I should read it.',
          signature: 'aimock-placeholder-signature',
        });
        pid = assistant.content[1].id;
        assert.deepEqual(assistant.content[1], { type: 'tool_use', id: pid, name: 'fs__read_file', input: { path: '/tmp/a.txt' } });
        assert.deepEqual(results, { role: 'user', content: [{ type: 'tool_result', tool_use_id: pid, content: result.content }] });
      } else {
        assert.deepEqual(first.json.tools[0].name, 'fs__read_file');
        assert.equal(first.json.tools[0].type, 'function');
        const input = second.json.input;
        pid = input.find((i: any) => i.type === 'function_call').call_id;
        assert.deepEqual(
          input.find((i: any) => i.type === 'function_call'),
          { type: 'function_call', call_id: pid, name: 'fs__read_file', arguments: '{"path":"/tmp/a.txt"}' },
        );
        assert.deepEqual(input.at(-1), { type: 'function_call_output', call_id: pid, output: result.content });
      }

      assert.ok(pid, 'the provider gave an id');
      assert.notEqual(pid, id);
      assert.match(id, /^call_[A-Za-z0-9_-]{16}$/);
      const session = await rig.session(sid);
      assert.deepEqual(
        session.messages.map((m: any) => m.role),
        ['user', 'assistant', 'tool', 'assistant'],
      );
      assert.deepEqual(session.messages[1].blocks.at(-1), {
        type: 'tool_call',
        call_id: id,
        server: 'fs',
        tool: 'read_file',
        arguments: { path: '/tmp/a.txt' },
      });
      assert.deepEqual(session.messages[2].blocks, [{ type: 'tool_result', call_id: id, ok: true, content: result.content }]);
    });

    it('stops after tools.max_steps rounds with stop_reason max_steps', async () => {
      relay.clear();
      const sid = await rig.newSession();
      const { frames, end } = await rig.turn(sid, 'loop');
      assert.equal(end.type, 'turn.completed');
      assert.equal(end.stop_reason, 'max_steps');
      assert.equal(frames.filter((f) => f.type === 'turn.tool_result').length, 2);
      assert.equal(relay.requests.filter((r) => r.method === 'POST').length, 3);
      // The unanswered third call does not break the next request: it gets an error result.
      relay.clear();
      const next = await rig.turn(sid, 'read the file');
      assert.equal(next.end.type, 'turn.completed', JSON.stringify(next.end));
    });
  });
}

describe('tool approval', () => {
  let mock: Aimock;
  let rig: ChatRig;
  before(async () => {
    mock = await Aimock.start(FIXTURES);
    rig = await ChatRig.start([{ id: 'prov', type: 'compat', base_url: `${mock.url}/v1`, models: [model('m1')] }], {
      start: { entry: ENTRY, args: ['-swap-port', 'off'] },
    });
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await mock?.stop();
  });

  it('waits for the approvals endpoint; deny returns an error result, allow + remember persists', async () => {
    const sid = await rig.newSession();
    const watch = await rig.watch();
    const approvals = (tid: string) => `${rig.sessionsPath(sid)}/turns/${tid}/approvals`;

    const first = await rig.send(sid, 'delete it');
    const ask = await watch.wait(first.turn_id, (f) => f.type === 'turn.tool_call');
    assert.equal(ask.needs_approval, true);
    assert.deepEqual(ask.arguments, { path: '/tmp/b.txt' });
    const session = await rig.session(sid);
    assert.equal(session.active_turn.turn_id, first.turn_id, 'the turn waits');
    assert.deepEqual(session.active_turn.awaiting_approval, [ask.call_id], 'a reloading page learns which call waits');
    const bad = await rig.call('POST', approvals(first.turn_id), { call_id: ask.call_id, decision: 'maybe' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'decision');
    const unknown = await rig.call('POST', approvals(first.turn_id), { call_id: 'nope', decision: 'allow' });
    assert.equal(unknown.status, 409);
    await rig.ok('POST', approvals(first.turn_id), { call_id: ask.call_id, decision: 'deny' });
    const denied = await watch.wait(first.turn_id, (f) => f.type === 'turn.tool_result');
    assert.deepEqual({ ok: denied.ok, content: denied.content }, { ok: false, content: 'The user denied this tool call.' });
    assert.equal((await watch.end(first.turn_id)).type, 'turn.completed');
    assert.ok(!rig.proc.output().includes('fs__delete_file {'), 'a denied call never runs');

    const second = await rig.send(sid, 'delete it');
    const ask2 = await watch.wait(second.turn_id, (f) => f.type === 'turn.tool_call');
    assert.equal(ask2.needs_approval, true);
    await rig.ok('POST', approvals(second.turn_id), { call_id: ask2.call_id, decision: 'allow', remember: true });
    const allowed = await watch.wait(second.turn_id, (f) => f.type === 'turn.tool_result');
    assert.equal(allowed.ok, true);
    await watch.end(second.turn_id);
    await rig.proc.waitForLine(/test-tools: remember \S+ fs__delete_file/);

    const third = await rig.send(sid, 'delete it');
    const ask3 = await watch.wait(third.turn_id, (f) => f.type === 'turn.tool_call');
    assert.equal(ask3.needs_approval, false, 'remembered: no approval asked');
    await watch.end(third.turn_id);
    watch.close();
  });
});
