import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { api, BackendProcess, startPaired, tempDir } from '../helpers/backend-process.js';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('data directory and config.yaml', () => {
  const procs: BackendProcess[] = [];
  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
  });

  it('is created on first start with the spec layout, 0700 and 0600 for secrets', async () => {
    const { proc } = await startPaired();
    procs.push(proc);
    const d = proc.dataDir;
    assert.equal(mode(d), 0o700);
    for (const f of ['config.yaml', 'workspaces.json', 'global_mcp_servers.json']) assert.ok(statSync(path.join(d, f)).isFile(), f);
    for (const dir of ['workspaces', 'profiles', 'skills', 'selfhost']) assert.ok(statSync(path.join(d, dir)).isDirectory(), dir);
    assert.equal(mode(path.join(d, 'config.yaml')), 0o600);
    assert.equal(mode(path.join(d, 'selfhost')), 0o700);
    assert.equal(mode(path.join(d, 'selfhost', 'pairing.json')), 0o600);
    assert.deepEqual(JSON.parse(readFileSync(path.join(d, 'workspaces.json'), 'utf8')), { workspaces: [] });
    assert.deepEqual(JSON.parse(readFileSync(path.join(d, 'global_mcp_servers.json'), 'utf8')), { mcpServers: {} });
  });

  it('repairs lax modes on existing secret files and warns', async () => {
    const d = path.join(tempDir(), 'data');
    mkdirSync(path.join(d, 'selfhost'), { recursive: true, mode: 0o755 });
    chmodSync(d, 0o755);
    writeFileSync(path.join(d, 'config.yaml'), 'providers: []\n', { mode: 0o644 });
    chmodSync(path.join(d, 'config.yaml'), 0o644);
    const proc = await BackendProcess.start({ dataDir: d });
    procs.push(proc);
    assert.equal(mode(d), 0o700);
    assert.equal(mode(path.join(d, 'config.yaml')), 0o600);
    assert.ok(proc.lines.some((l) => /warning: .*config\.yaml had a lax mode; set to 0600/.test(l.line)));
  });

  it('reads providers with env overrides, masks keys and applies the -model fallback', async () => {
    const d = path.join(tempDir(), 'data');
    mkdirSync(d, { recursive: true });
    writeFileSync(
      path.join(d, 'config.yaml'),
      `# my providers
providers:
  - id: ds
    name: Deep Seek
    type: compat
    api_key: sk-file-key-1234567890abcd
    base_url: https://api.deepseek.test/v1/
    enabled: true
    models:
      - {id: chat, name: Chat, context_window: 64000, supports_thinking: false, supports_tools: true}
  - id: local
    name: local llm
    type: compat
    enabled: false
    models: []
`,
      { mode: 0o600 },
    );
    const { proc, credential } = await startPaired({
      dataDir: d,
      args: ['-model', 'ds:chat'],
      env: { DEEP_SEEK_API_KEY: 'sk-env-key-abcdefghijklmnop', LOCAL_LLM_BASE_URL: 'http://127.0.0.1:11434/v1' },
    });
    procs.push(proc);
    const r = await api(proc.url, 'GET', '/api/config/providers', { credential });
    assert.equal(r.status, 200);
    const [ds, local] = r.body.providers;
    assert.equal(ds.api_key_source, 'env');
    assert.equal(ds.api_key_set, true);
    assert.equal(ds.api_key_hint, 'sk-...mnop');
    assert.equal(ds.base_url, 'https://api.deepseek.test/v1', 'trailing slash dropped');
    assert.equal(local.api_key_source, 'none');
    assert.equal(local.api_key_set, false);
    assert.equal(local.base_url, 'http://127.0.0.1:11434/v1');
    assert.equal(local.base_url_source, 'env');
    assert.equal(r.body.effective_default, 'ds:chat');
    assert.deepEqual(r.body.errors, []);
    const text = JSON.stringify(r.body);
    assert.ok(!text.includes('sk-file-key') && !text.includes('sk-env-key'), 'no full key in the response');
    assert.ok(proc.lines.some((l) => /base_url ends with "\/"/.test(l.line)));
    assert.ok(readFileSync(path.join(d, 'config.yaml'), 'utf8').includes('sk-file-key-1234567890abcd'), 'env value not written back');
  });

  it('starts with a malformed config.yaml, reports file and line, and never overwrites it', async () => {
    const d = path.join(tempDir(), 'data');
    mkdirSync(d, { recursive: true });
    const broken = 'providers:\n  - id: a\n    name: [unclosed\n  type: compat\n';
    writeFileSync(path.join(d, 'config.yaml'), broken, { mode: 0o600 });
    const { proc, credential } = await startPaired({ dataDir: d });
    procs.push(proc);
    assert.ok(proc.lines.some((l) => l.stream === 'stderr' && l.line.startsWith(`config error: ${path.join(d, 'config.yaml')}:`)));
    const r = await api(proc.url, 'GET', '/api/config/providers', { credential });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.providers, []);
    assert.ok(r.body.errors.length > 0);
    assert.equal(r.body.errors[0].file, path.join(d, 'config.yaml'));
    assert.equal(typeof r.body.errors[0].line, 'number');
    await proc.stop();
    assert.equal(readFileSync(path.join(d, 'config.yaml'), 'utf8'), broken);
  });

  it('reports a data directory it cannot use in one line, exit 1', async () => {
    const file = path.join(tempDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    const proc = await BackendProcess.start({ dataDir: file, waitForListening: false });
    procs.push(proc);
    assert.equal(await proc.exited, 1);
    assert.match(proc.output(), /^error: cannot use data directory /);
    assert.doesNotMatch(proc.output(), /\n\s+at /);
  });
});
