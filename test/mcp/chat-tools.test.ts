import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Aimock, type AimockFixture } from '../helpers/aimock.js';
import { RecordingRelay, type RecordedRequest } from '../helpers/recording-relay.js';
import { ChatRig, model } from '../chat/chat-harness.js';
import { everythingStdio } from './mcp-test-kit.js';

const MISSING = 'no-such-mcp-command-for-chat-tests';

/** Two legs per prompt: the model calls a tool, then answers once the result is in the request. */
function toolRound(
  prompt: string,
  call: { name: string; arguments: Record<string, unknown>; id: string },
  answer: string,
): AimockFixture[] {
  return [
    { match: { userMessage: prompt, hasToolResult: true }, response: { content: answer } },
    { match: { userMessage: prompt, hasToolResult: false }, response: { toolCalls: [call] } },
  ];
}

const FIXTURES: AimockFixture[] = [
  ...toolRound('add twenty and twenty-two', { name: 'ev__get-sum', arguments: { a: 20, b: 22 }, id: 'call_sum_1' }, 'It is 42.'),
  ...toolRound('echo but I will deny', { name: 'ev__echo', arguments: { message: 'secret' }, id: 'call_echo_deny' }, 'Fine, not echoed.'),
  ...toolRound('echo and remember', { name: 'ev__echo', arguments: { message: 'remembered' }, id: 'call_echo_allow' }, 'Echoed.'),
  { match: { userMessage: 'plain question' }, response: { content: 'A plain answer.' } },
];

/** The request that carried the result of `callId`, in the protocol's own shape. */
function resultRequest(type: string, requests: RecordedRequest[], callId: string): { req: RecordedRequest; content: string } | undefined {
  for (const req of requests) {
    const j = req.json;
    if (!j) continue;
    if (type === 'compat') {
      const m = (j.messages ?? []).find((x: any) => x.role === 'tool' && x.tool_call_id === callId);
      if (m) return { req, content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) };
    } else if (type === 'native') {
      for (const m of j.messages ?? []) {
        const b = Array.isArray(m.content) ? m.content.find((x: any) => x.type === 'tool_result' && x.tool_use_id === callId) : undefined;
        if (b && m.role === 'user') return { req, content: typeof b.content === 'string' ? b.content : JSON.stringify(b.content) };
      }
    } else {
      const item = (j.input ?? []).find((x: any) => x.type === 'function_call_output' && x.call_id === callId);
      if (item) return { req, content: typeof item.output === 'string' ? item.output : JSON.stringify(item.output) };
    }
  }
  return undefined;
}

for (const type of ['compat', 'native', 'responsemode'] as const) {
  describe(`tools in chat over ${type}`, () => {
    let mock: Aimock;
    let relay: RecordingRelay;
    let rig: ChatRig;
    before(async () => {
      mock = await Aimock.start(FIXTURES);
      relay = await RecordingRelay.start(mock.url);
      rig = await ChatRig.start([{ id: 'prov', type, base_url: type === 'native' ? relay.url : `${relay.url}/v1`, models: [model('m1')] }]);
      await rig.ok('PUT', '/api/mcp/global', {
        mcpServers: {
          ev: everythingStdio({ always_allow: ['get-sum'] }),
          broken: { command: MISSING, approval: 'auto' },
        },
      });
    });
    after(async () => {
      await rig?.proc.stop();
      rig?.proc.cleanup();
      await relay?.stop();
      await mock?.stop();
    });

    it('a tool call runs on the real server and its result goes back in the next request', async () => {
      const sid = await rig.newSession();
      const { frames, end } = await rig.turn(sid, 'add twenty and twenty-two', 60_000);
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      assert.equal(end.stop_reason, 'end_turn');
      const call = frames.find((f) => f.type === 'turn.tool_call');
      assert.deepEqual(
        { call_id: call.call_id, server: call.server, tool: call.tool, arguments: call.arguments, needs_approval: call.needs_approval },
        { call_id: call.call_id, server: 'ev', tool: 'get-sum', arguments: { a: 20, b: 22 }, needs_approval: false },
      );
      // The backend's own id in frames; the provider's (call_sum_1) only goes back to the provider.
      assert.match(call.call_id, /^call_[A-Za-z0-9_-]{16}$/);
      const result = frames.find((f) => f.type === 'turn.tool_result');
      assert.deepEqual({ ok: result.ok, content: result.content }, { ok: true, content: 'The sum of 20 and 22 is 42.' });
      const sent = resultRequest(type, relay.requests, 'call_sum_1');
      assert.ok(sent, 'the next request carries the tool result in the protocol shape');
      assert.match(sent.content, /The sum of 20 and 22 is 42\./);
      const session = await rig.session(sid);
      assert.deepEqual(
        session.messages.map((m: any) => m.role),
        ['user', 'assistant', 'tool', 'assistant'],
      );
      assert.equal(session.messages[3].blocks.find((b: any) => b.type === 'text').text, 'It is 42.');
    });

    it('tools reach the model as <server>__<tool>; a server that cannot start is named in the system prompt and the status', async () => {
      const first = relay.requests.find((r) => r.json && (r.json.tools ?? []).length > 0);
      assert.ok(first, 'tools were offered');
      const names = (first.json.tools as any[]).map((t) => t.name ?? t.function?.name);
      assert.ok(names.includes('ev__echo') && names.includes('ev__get-sum'), names.join(','));
      assert.ok(!names.some((n) => n.startsWith('broken__')));
      assert.match(JSON.stringify(first.json), new RegExp(`broken: command not found: ${MISSING}`));
      const status = await rig.ok('GET', `/api/mcp/status?workspace=${rig.workspaceId}`);
      const byName = Object.fromEntries(status.servers.map((s: any) => [s.name, s]));
      assert.equal(byName.ev.state, 'ready');
      assert.ok(byName.ev.tools.some((t: any) => t.name === 'echo'));
      assert.equal(byName.broken.state, 'failed');
      assert.equal(byName.broken.error, `command not found: ${MISSING} (searched ${process.env.PATH})`);
    });

    it('ask → deny: the call waits, is not run, and the model gets an error result', async () => {
      const sid = await rig.newSession();
      const watch = await rig.watch();
      try {
        const { turn_id } = await rig.send(sid, 'echo but I will deny');
        const call = await watch.wait(turn_id, (f) => f.type === 'turn.tool_call', 60_000);
        assert.equal(call.needs_approval, true);
        assert.deepEqual(call.arguments, { message: 'secret' });
        await rig.ok('POST', `${rig.sessionsPath(sid)}/turns/${turn_id}/approvals`, { call_id: call.call_id, decision: 'deny' });
        const end = await watch.end(turn_id, 30_000);
        assert.equal(end.type, 'turn.completed');
        const result = watch.frames(turn_id).find((f) => f.type === 'turn.tool_result');
        assert.equal(result.ok, false);
        assert.match(result.content, /denied/);
        const sent = resultRequest(type, relay.requests, 'call_echo_deny');
        assert.ok(sent);
        assert.doesNotMatch(sent.content, /Echo: secret/);
      } finally {
        watch.close();
      }
    });

    it('ask → allow with remember: the call runs and always_allow is written to the server entry', async () => {
      const sid = await rig.newSession();
      const watch = await rig.watch();
      try {
        const { turn_id } = await rig.send(sid, 'echo and remember');
        const call = await watch.wait(turn_id, (f) => f.type === 'turn.tool_call', 60_000);
        assert.equal(call.needs_approval, true);
        await rig.ok('POST', `${rig.sessionsPath(sid)}/turns/${turn_id}/approvals`, {
          call_id: call.call_id,
          decision: 'allow',
          remember: true,
        });
        await watch.end(turn_id, 30_000);
        const result = watch.frames(turn_id).find((f) => f.type === 'turn.tool_result');
        assert.deepEqual({ ok: result.ok, content: result.content }, { ok: true, content: 'Echo: remembered' });
        assert.ok(
          watch.conn.messages.some((m) => m.type === 'config.changed' && m.resource === 'mcp' && m.id === 'global'),
          'clients hear that the tool-server file changed',
        );
      } finally {
        watch.close();
      }
      const file = JSON.parse(readFileSync(path.join(rig.proc.dataDir, 'global_mcp_servers.json'), 'utf8'));
      assert.deepEqual(file.mcpServers.ev.always_allow, ['get-sum', 'echo']);
      assert.deepEqual(file.mcpServers.ev.args, everythingStdio().args, 'the rest of the entry is unchanged');
      // The next turn does not ask again.
      const again = await rig.turn(await rig.newSession(), 'echo and remember', 60_000);
      assert.equal(again.frames.find((f) => f.type === 'turn.tool_call').needs_approval, false);
    });
  });
}
