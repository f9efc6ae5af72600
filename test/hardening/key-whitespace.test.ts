import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, startPaired, tempDir, type BackendProcess } from '../helpers/backend-process.js';
import { ScriptedSse } from '../helpers/scripted-sse.js';
import { openWs } from '../helpers/ws-client.js';

const KEY = 'sk-echo-4b1d9e7c2a6f8035';
const INNER = 'sk-inner-7a2c9e1f4b6d';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/**
 * A key pasted with its line ending (or trailing spaces) into config.yaml: HTTP strips the
 * whitespace, so the provider sees and echoes the bare key, which the old scrubbing (of the
 * stored text, whitespace included) did not recognise.
 */
describe('API keys with whitespace around or inside them never leak', () => {
  let fake: ScriptedSse;
  let proc: BackendProcess;
  let credential = '';
  let workspace = '';
  const call = (method: string, p: string, body?: unknown) => api(proc.url, method, p, { credential, body });

  before(async () => {
    fake = await ScriptedSse.start();
    const dataDir = path.join(tempDir('svc-keyws-'), 'data');
    mkdirSync(dataDir, { recursive: true });
    const provider = (id: string, key: string) =>
      `  - id: ${id}\n    name: ${id}\n    type: compat\n    api_key: ${JSON.stringify(key)}\n    base_url: ${fake.url}/v1\n    models: [{id: m1}]\n`;
    writeFileSync(
      path.join(dataDir, 'config.yaml'),
      `providers:\n${provider('cr', `${KEY}\r`)}${provider('spaces', `${KEY}   `)}${provider('inner', `${INNER}\r\nx`)}defaults: {provider: cr, model: m1}\n`,
      { mode: 0o600 },
    );
    ({ proc, credential } = await startPaired({ dataDir }));
    workspace = (await call('POST', '/api/workspaces', { name: 'keys' })).body.id;
  });
  after(async () => {
    await proc?.stop();
    proc?.cleanup();
    await fake?.stop();
  });

  for (const id of ['cr', 'spaces']) {
    it(`${id}: the key is sent trimmed and the provider's echo of it is masked`, async () => {
      await call('PUT', '/api/config/defaults', { provider: id, model: 'm1' });
      fake.seen.length = 0;
      fake.next({ status: 401, chunks: [JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}. Check it.` } })] });
      const sid = (await call('POST', `/api/workspaces/${workspace}/sessions`, {})).body.id;
      const conn = await openWs(`${proc.url.replace('http', 'ws')}/ws?service_credential=${credential}`);
      const { turn_id } = (await call('POST', `/api/workspaces/${workspace}/sessions/${sid}/messages`, { content: 'hi' })).body;
      const end = await conn.next((m) => m.turn_id === turn_id && m.type === 'turn.failed', 10_000);
      conn.socket.close();
      assert.equal(fake.seen[0]?.headers.authorization, `Bearer ${KEY}`);
      assert.equal(end.error.code, 'provider_unauthorized');
      assert.match(end.error.message, /Incorrect API key provided: \*\*\*/);
      assert.ok(!JSON.stringify(end).includes(KEY.slice(3)), JSON.stringify(end));
      const session = (await call('GET', `/api/workspaces/${workspace}/sessions/${sid}`)).body;
      assert.ok(!JSON.stringify(session).includes(KEY.slice(3)));
      for (const file of filesUnder(path.join(proc.dataDir, 'workspaces')))
        assert.ok(!readFileSync(file, 'utf8').includes(KEY.slice(3)), file);
    });
  }

  it('the hint and the provider test show no part of a key that cannot go into a header', async () => {
    const listed = (await call('GET', '/api/config/providers')).body.providers.find((p: any) => p.id === 'spaces');
    assert.equal(listed.api_key_hint, 'sk-...8035');
    const res = await call('POST', '/api/config/providers/inner/test', {});
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, false);
    assert.ok(!JSON.stringify(res.body).includes(INNER.slice(3)), JSON.stringify(res.body));
    await call('PUT', '/api/config/defaults', { provider: 'inner', model: 'm1' });
    const sid = (await call('POST', `/api/workspaces/${workspace}/sessions`, {})).body.id;
    const conn = await openWs(`${proc.url.replace('http', 'ws')}/ws?service_credential=${credential}`);
    const { turn_id } = (await call('POST', `/api/workspaces/${workspace}/sessions/${sid}/messages`, { content: 'hi' })).body;
    const end = await conn.next((m) => m.turn_id === turn_id && m.type === 'turn.failed', 10_000);
    conn.socket.close();
    assert.ok(!JSON.stringify(end).includes(INNER.slice(3)), JSON.stringify(end));
    assert.ok(!proc.output().includes(INNER.slice(3)), 'no log line carries the key');
  });

  it('the API trims a pasted key and refuses one with whitespace inside, naming api_key', async () => {
    const created = await call('POST', '/api/config/providers', { id: 'pasted', name: 'Pasted', type: 'compat', api_key: `${KEY}\r\n` });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(readFileSync(path.join(proc.dataDir, 'config.yaml'), 'utf8'), new RegExp(`api_key: ${KEY}\\n`));
    const bad = await call('POST', '/api/config/providers', { id: 'bad', name: 'Bad', type: 'compat', api_key: 'sk-a b' });
    assert.deepEqual([bad.status, bad.body.error.field], [400, 'api_key']);
    assert.match(bad.body.error.message, /api_key must not contain spaces or control characters/);
  });
});
