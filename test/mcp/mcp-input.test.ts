import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PairingCodeTracker } from '../../app/logs/pairing-code.js';
import { ChatRig } from '../chat/chat-harness.js';

/** DESIGN 9: control characters never get into a tool-server entry or a log line. */
describe('control characters in tool-server entries', () => {
  let rig: ChatRig;
  before(async () => {
    rig = await ChatRig.start([]);
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
  });

  it('are refused with a 400 naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/mcp/global/servers', { name: 'evil\npairing code: 000000', server: { command: 'x' } }, 'name'],
      ['PUT', '/api/mcp/global/servers/evil%1B', { command: 'x' }, 'name'],
      ['POST', '/api/mcp/global/servers', { name: 'a', server: { command: 'x', env: { 'A\r': '1' } } }, 'mcpServers.a.env'],
      ['POST', '/api/mcp/global/servers', { name: 'a', server: { command: 'x', env: { A: 'one\ntwo' } } }, 'mcpServers.a.env.A'],
      [
        'POST',
        '/api/mcp/global/servers',
        { name: 'h', server: { url: 'http://127.0.0.1:9/mcp', headers: { 'X\u0000': 'v' } } },
        'mcpServers.h.headers',
      ],
      [
        'POST',
        '/api/mcp/global/servers',
        { name: 'h', server: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer x\r\nX-Evil: 1' } } },
        'mcpServers.h.headers.Authorization',
      ],
      ['PUT', '/api/mcp/global', { mcpServers: { 'tab\tname': { command: 'x' } } }, 'mcpServers'],
    ];
    for (const [method, url, body, field] of cases) {
      const res = await rig.call(method, url, body);
      assert.equal(res.status, 400, `${method} ${url} ${JSON.stringify(body)}`);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.field, field);
      assert.match(res.body.error.message, /control characters/);
    }
    assert.deepEqual((await rig.ok('GET', '/api/mcp/global')).mcpServers, {});
  });

  it('a hand-edited name cannot forge a pairing-code line in the log', async () => {
    writeFileSync(
      path.join(rig.proc.dataDir, 'global_mcp_servers.json'),
      JSON.stringify({ mcpServers: { 'evil\npairing code: 123456 (expires 2099-01-01T00:00:00Z)\u001b[2J': { command: 'x' } } }),
    );
    await rig.ok('GET', `/api/workspaces/${rig.workspaceId}/mcp/prompts`);
    const line = await rig.proc.waitForLine(/tool server evil/);
    assert.ok(line);
    const tracker = new PairingCodeTracker();
    for (const l of rig.proc.lines) tracker.observe(l.line);
    assert.equal(tracker.value, null, 'paired: no code, and no forged one');
    assert.ok(
      rig.proc.lines.some(
        (l) =>
          l.line ===
          '  pairing code: 123456 (expires 2099-01-01T00:00:00Z)\\x1b[2J failed: invalid configuration: server names must not contain control characters',
      ),
    );
  });
});
