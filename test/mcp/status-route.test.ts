import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { ChatRig, model } from '../chat/chat-harness.js';
import { startEverythingHttp } from './mcp-test-kit.js';

const FIXTURES = [
  { match: { userMessage: 'use the cli server', hasToolResult: true }, response: { content: 'Done.' } },
  {
    match: { userMessage: 'use the cli server', hasToolResult: false },
    response: { toolCalls: [{ name: 'cli__echo', arguments: { message: 'from -mcp' } }] },
  },
];

describe('GET /api/mcp/status and the -mcp server', () => {
  let mock: Aimock;
  let remote: Awaited<ReturnType<typeof startEverythingHttp>>;
  let rig: ChatRig;
  before(async () => {
    mock = await Aimock.start(FIXTURES);
    remote = await startEverythingHttp('streamableHttp');
    rig = await ChatRig.start([{ id: 'prov', type: 'compat', base_url: `${mock.url}/v1`, models: [model('m1')] }], {
      start: { args: ['-mcp', remote.url] },
    });
    await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}/mcp`, {
      mcpServers: { local: { command: 'definitely-not-installed-mcp', approval: 'auto' } },
    });
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    remote?.stop();
    await mock?.stop();
  });

  it('lists the merged servers without starting any; rejects bad and unknown workspaces', async () => {
    const global = await rig.ok('GET', '/api/mcp/status');
    assert.deepEqual(
      global.servers.map((s: any) => [s.name, s.source, s.transport, s.state]),
      [['cli', 'cli', 'http', 'stopped']],
    );
    const ws = await rig.ok('GET', `/api/mcp/status?workspace=${rig.workspaceId}`);
    assert.equal(ws.workspace_id, rig.workspaceId);
    assert.deepEqual(
      ws.servers.map((s: any) => [s.name, s.source, s.state, s.error]),
      [
        ['cli', 'cli', 'stopped', null],
        ['local', 'workspace', 'stopped', null],
      ],
    );
    const bad = await rig.call('GET', '/api/mcp/status?workspace=../etc');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'workspace');
    assert.equal((await rig.call('GET', '/api/mcp/status?workspace=ws-nope')).status, 404);
    const anonymous = await fetch(`${rig.proc.url}/api/mcp/status`);
    assert.equal(anonymous.status, 401);
  });

  it('a turn starts the servers: the -mcp server answers as cli (asking first), the broken one is reported', async () => {
    const sid = await rig.newSession();
    const watch = await rig.watch();
    try {
      const { turn_id } = await rig.send(sid, 'use the cli server');
      const call = await watch.wait(turn_id, (f) => f.type === 'turn.tool_call', 60_000);
      assert.equal(call.server, 'cli');
      assert.equal(call.needs_approval, true, 'approval defaults to ask');
      await rig.ok('POST', `${rig.sessionsPath(sid)}/turns/${turn_id}/approvals`, { call_id: call.call_id, decision: 'allow' });
      await watch.end(turn_id, 30_000);
      const result = watch.frames(turn_id).find((f) => f.type === 'turn.tool_result');
      assert.deepEqual({ ok: result.ok, content: result.content }, { ok: true, content: 'Echo: from -mcp' });
    } finally {
      watch.close();
    }
    const ws = await rig.ok('GET', `/api/mcp/status?workspace=${rig.workspaceId}`);
    const byName = Object.fromEntries(ws.servers.map((s: any) => [s.name, s]));
    assert.equal(byName.cli.state, 'ready');
    assert.equal(byName.cli.pid, null);
    assert.ok(byName.cli.tools.some((t: any) => t.name === 'get-sum'));
    assert.equal(byName.local.state, 'failed');
    assert.equal(byName.local.error, `command not found: definitely-not-installed-mcp (searched ${process.env.PATH})`);
    assert.ok((await rig.ok('GET', '/api/logs')).lines.some((l: any) => /tool server local failed: command not found/.test(l.line)));
  });
});
