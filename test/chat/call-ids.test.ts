import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ScriptedSse } from '../helpers/scripted-sse.js';
import { ChatRig, model } from './chat-harness.js';
import { compat } from './scripts.js';

const ENTRY = fileURLToPath(new URL('./fixtures/tool-backend.js', import.meta.url));

/** A compatible server that sends tool calls without any id (every call would have been `call_0`). */
const idlessCall = (path: string) => [
  compat.delta({ tool_calls: [{ index: 0, function: { name: 'fs__delete_file', arguments: JSON.stringify({ path }) } }] }),
  compat.stop('tool_calls'),
  compat.done(),
];

describe('backend call ids with a provider that omits them (DESIGN 9)', () => {
  let fake: ScriptedSse;
  let rig: ChatRig;
  before(async () => {
    fake = await ScriptedSse.start();
    rig = await ChatRig.start([{ id: 'c', type: 'compat', base_url: `${fake.url}/v1`, models: [model('m1')] }], {
      start: { entry: ENTRY, args: ['-swap-port', 'off'] },
    });
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await fake?.stop();
  });

  it('two rounds get two ids: approving the first call never runs the second', async () => {
    fake.next({ chunks: idlessCall('/one') }, { chunks: idlessCall('/two') }, { chunks: compat.reply('Done.') });
    const sid = await rig.newSession();
    const watch = await rig.watch();
    const approvals = (turnId: string) => `${rig.sessionsPath(sid)}/turns/${turnId}/approvals`;
    try {
      const { turn_id } = await rig.send(sid, 'delete two files');
      const first = await watch.wait(turn_id, (f) => f.type === 'turn.tool_call');
      assert.equal(first.needs_approval, true);
      await rig.ok('POST', approvals(turn_id), { call_id: first.call_id, decision: 'allow' });
      const second = await watch.wait(turn_id, (f) => f.type === 'turn.tool_call' && f.call_id !== first.call_id);
      assert.deepEqual(second.arguments, { path: '/two' });
      assert.match(second.call_id, /^call_[A-Za-z0-9_-]{16}$/);

      // A stale Allow card of the first call answers nothing now.
      const stale = await rig.call('POST', approvals(turn_id), { call_id: first.call_id, decision: 'allow' });
      assert.equal(stale.status, 409);
      assert.equal(stale.body.error.field, 'call_id');
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(rig.proc.lines.some((l) => l.line.includes('fs__delete_file {"path":"/one"}')));
      assert.ok(!rig.proc.lines.some((l) => l.line.includes('"/two"')), 'the second call waits for its own answer');

      await rig.ok('POST', approvals(turn_id), { call_id: second.call_id, decision: 'deny' });
      const end = await watch.end(turn_id);
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      assert.ok(!rig.proc.lines.some((l) => l.line.includes('"/two"')), 'the denied call never ran');

      // With no provider id, the provider is answered with the backend's ids, distinct per call.
      const last = fake.seen[2].json.messages;
      const sentCalls = last.filter((m: any) => m.role === 'assistant').map((m: any) => m.tool_calls[0].id);
      const sentResults = last.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id);
      assert.deepEqual(sentCalls, [first.call_id, second.call_id]);
      assert.deepEqual(sentResults, [first.call_id, second.call_id]);

      const session = await rig.session(sid);
      const stored = session.messages.flatMap((m: any) => m.blocks).filter((b: any) => b.call_id);
      assert.deepEqual(
        stored.map((b: any) => [b.type, b.call_id]),
        [
          ['tool_call', first.call_id],
          ['tool_result', first.call_id],
          ['tool_call', second.call_id],
          ['tool_result', second.call_id],
        ],
      );
      assert.ok(
        stored.every((b: any) => !('provider_id' in b)),
        'the provider id is not part of the API',
      );
    } finally {
      watch.close();
    }
  });
});
