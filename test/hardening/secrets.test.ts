import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { openWs } from '../helpers/ws-client.js';
import { isEnvelope, jsonPost, send, swapListener, type Reply } from './harness.js';

const FILE_KEY = 'sk-file-7f3a9c1e5b2d4a6f8e0c';
const API_KEY = 'sk-api-1b2c3d4e5f60718293a4';
const ENV_KEY = 'sk-env-9e8d7c6b5a4f3e2d1c0b';
const MCP_TOKEN = 'ghp_mcpTokenAbcdef0123456789';
const BOOTSTRAP = 'bootstrap-6c1f0e9d8b7a6c5d4e3f';
const WRONG_QUERY = 'svc_wrongQueryValue0123456789abcdefABCDEF012';

const root = path.join(tempDir('svc-secrets-'), 'data');
let proc: BackendProcess | undefined;
after(async () => {
  await proc?.stop();
  proc?.cleanup();
});

/** A data directory as a careless earlier install (or a hand edit) left it: world-readable. */
function laxDataDir(): void {
  mkdirSync(path.join(root, 'selfhost'), { recursive: true, mode: 0o755 });
  writeFileSync(
    path.join(root, 'config.yaml'),
    `providers:\n  - id: hand\n    name: Hand\n    type: compat\n    api_key: ${FILE_KEY}\n  - id: envp\n    name: Env P\n    type: compat\ndefaults: {}\n`,
    { mode: 0o644 },
  );
  writeFileSync(path.join(root, 'selfhost', 'bootstrap_secret'), `${BOOTSTRAP}\n`, { mode: 0o644 });
  writeFileSync(
    path.join(root, 'global_mcp_servers.json'),
    JSON.stringify({ mcpServers: { gh: { command: 'gh-mcp', env: { GITHUB_TOKEN: MCP_TOKEN } } } }),
    { mode: 0o644 },
  );
}

function walk(dir: string, out: { file: string; mode: number; dir: boolean }[] = []) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const st = statSync(full);
    out.push({ file: full, mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory()) walk(full, out);
  }
  return out;
}

describe('secrets', () => {
  it('no log line, API answer or file other than config.yaml carries a secret; modes are 0600/0700, lax ones repaired', async () => {
    laxDataDir();
    proc = await BackendProcess.start({ dataDir: root, env: { ENV_P_API_KEY: ENV_KEY } });
    const swap = await swapListener(proc);
    const replies: Reply[] = [];
    const keep = async (p: Promise<Reply>) => {
      const r = await p;
      replies.push(r);
      return r;
    };
    const port = proc.port;
    // The claim and rotate answers are the one place a credential is handed out (checked below).
    const claim = await jsonPost(port, '/api/pairing/claim', { bootstrap_secret: BOOTSTRAP });
    assert.equal(claim.status, 200, claim.text);
    const credentials = [claim.json.credential as string];
    const h = () => ({ authorization: `Bearer ${credentials[credentials.length - 1]}` });
    const json = () => ({ ...h(), 'content-type': 'application/json' });

    // Everything that handles a secret, with and without the right credential.
    await keep(send(port, { path: '/api/config/providers', headers: h() }));
    await keep(send(port, { path: '/api/config/providers/hand', headers: h() }));
    await keep(send(port, { path: '/api/config/providers/envp', headers: h() }));
    const created = await keep(
      send(port, {
        method: 'POST',
        path: '/api/config/providers',
        headers: json(),
        body: JSON.stringify({ id: 'api', name: 'Api', type: 'native', api_key: API_KEY, base_url: 'http://127.0.0.1:1' }),
      }),
    );
    assert.equal(created.status, 201);
    await keep(
      send(port, {
        method: 'PUT',
        path: '/api/config/providers/api',
        headers: json(),
        body: JSON.stringify({ name: 'Api', type: 'native', api_key: created.json.api_key_hint }),
      }),
    );
    await keep(
      send(port, { method: 'POST', path: '/api/config/providers/api/test', headers: json(), body: JSON.stringify({ timeout_ms: 300 }) }),
    );
    // Tool-server env values are returned to the paired client, which edits them (not masked).
    const mcp = await send(port, { path: '/api/mcp/global', headers: h() });
    assert.equal(mcp.json.mcpServers.gh.env.GITHUB_TOKEN, MCP_TOKEN);
    assert.equal((await keep(send(port, { path: '/api/mcp/global' }))).status, 401);
    await keep(send(port, { path: `/api/logs?service_credential=${credentials[0]}`, headers: h() }));
    await keep(
      send(port, {
        path: `/api/nope?service_credential=${WRONG_QUERY}&api_key=${FILE_KEY.slice(0, 6)}`,
        headers: { authorization: `Bearer ${WRONG_QUERY}` },
      }),
    );
    await keep(send(port, { path: '/api/config/providers', headers: { 'x-service-credential': WRONG_QUERY } }));
    await keep(send(port, { path: '/api/config/providers', headers: { authorization: `Bearer ${BOOTSTRAP}` } }));
    await keep(jsonPost(port, '/api/pairing/claim', { bootstrap_secret: BOOTSTRAP }));
    await keep(jsonPost(swap.port, '/api/v1/route/build', { chain: 'bsc', api_key: API_KEY }));

    const ws = await openWs(`ws://127.0.0.1:${port}/ws?service_credential=${credentials[0]}`);
    ws.socket.send(JSON.stringify({ type: 'subscribe', topics: ['log'] }));
    await assert.rejects(openWs(`ws://127.0.0.1:${port}/ws?service_credential=${WRONG_QUERY}`));
    const rotated = await send(port, { method: 'POST', path: '/api/selfhost/credential/rotate', headers: h() });
    credentials.push(rotated.json.credential);
    await ws.closed;
    await keep(send(port, { path: '/api/logs', headers: h() }));
    const apiLog = await keep(send(port, { path: '/api/logs', headers: h() }));
    assert.ok(apiLog.json.lines.length > 10);
    await proc.stop();

    const secrets = [FILE_KEY, API_KEY, ENV_KEY, MCP_TOKEN, BOOTSTRAP, WRONG_QUERY, ...credentials];
    const wsText = ws.messages.map((m) => JSON.stringify(m)).join('\n');
    const places: [string, string][] = [
      ['backend output', proc.output()],
      ['WebSocket messages', wsText],
      ...replies.map((r, i): [string, string] => [`API answer #${i} (${r.status})`, r.text]),
    ];
    places.push(['claim answer', claim.text.replace(credentials[0], '')], ['rotate answer', rotated.text.replace(credentials[1], '')]);
    for (const { file, dir } of walk(root))
      if (!dir && path.basename(file) !== 'config.yaml') places.push([file, readFileSync(file, 'utf8')]);
    for (const [where, text] of places) {
      for (const secret of secrets) {
        // The tool server's own token is its configuration: it may live in its file only.
        if (secret === MCP_TOKEN && where.endsWith('global_mcp_servers.json')) continue;
        assert.ok(!text.includes(secret), `${where} contains ${secret.slice(0, 8)}…`);
      }
    }
    const config = readFileSync(path.join(root, 'config.yaml'), 'utf8');
    assert.ok(!config.includes(ENV_KEY), 'an env-provided key is never written to config.yaml');
    assert.ok(!credentials.some((c) => config.includes(c)));
    for (const r of replies) if (r.status >= 400) assert.ok(isEnvelope(r.json), r.text);

    assert.equal(statSync(root).mode & 0o777, 0o700, 'data directory 0700');
    for (const { file, mode, dir } of walk(root)) {
      assert.equal(mode, dir ? 0o700 : 0o600, `${path.relative(root, file)} is ${mode.toString(8)}`);
    }
    assert.match(proc.output(), /config\.yaml had a lax mode; set to 0600/);
  });
});
