import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { api, startPaired, type BackendProcess } from '../helpers/backend-process.js';
import { EventClient, seededDataDir } from './config-helpers.js';

const HAND_WRITTEN = `# Hand-written providers file
providers:
  # the local model server
  - id: local          # keep this comment
    name: Local LLM
    type: compat
    base_url: http://127.0.0.1:1/v1
    api_key: sk-local-secret-123456
    enabled: true
    x_custom: keep me   # unknown key
    models:
      - id: llama
        name: Llama
        context_window: 8192
  - id: envco
    name: Env Co
    type: native
    api_key: sk-file-key-shadowed-000
    base_url: http://file.example
    models:
      - {id: claude-x, supports_thinking: true}
defaults:
  provider: local   # default provider
  model: llama
extra_top: 1
`;
const ENV_KEY = 'sk-env-key-abcdef123456';
const ENV_URL = 'http://127.0.0.1:2';

let proc: BackendProcess;
let credential: string;
let events: EventClient;
let configFile: string;
const call = (method: string, p: string, body?: unknown) => api(proc.url, method, p, { credential, body });
const fileText = () => readFileSync(configFile, 'utf8');
const valid = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: `Provider ${id}`,
  type: 'compat',
  base_url: 'http://127.0.0.1:9/v1',
  api_key: `sk-${id}-0123456789`,
  models: [{ id: 'm1', context_window: 1000 }],
  ...extra,
});

before(async () => {
  const dataDir = seededDataDir({ 'config.yaml': HAND_WRITTEN });
  configFile = path.join(dataDir, 'config.yaml');
  ({ proc, credential } = await startPaired({ dataDir, env: { ENV_CO_API_KEY: ENV_KEY, ENV_CO_BASE_URL: ENV_URL } }));
  events = await EventClient.open(proc.url, credential);
});

after(async () => {
  events?.close();
  await proc?.stop();
  proc?.cleanup();
});

describe('provider listing', () => {
  test('keys are masked and env overrides are shown as such', async () => {
    const res = await call('GET', '/api/config/providers');
    assert.equal(res.status, 200);
    const text = JSON.stringify(res.body);
    for (const secret of ['sk-local-secret-123456', ENV_KEY, 'sk-file-key-shadowed-000'])
      assert.ok(!text.includes(secret), `leaked ${secret}`);
    const local = res.body.providers.find((p: any) => p.id === 'local');
    assert.deepEqual([local.api_key_set, local.api_key_hint, local.api_key_source], [true, 'sk-...3456', 'file']);
    const envco = res.body.providers.find((p: any) => p.id === 'envco');
    assert.deepEqual(
      [envco.api_key_source, envco.api_key_hint, envco.base_url, envco.base_url_source],
      ['env', 'sk-...3456', ENV_URL, 'env'],
    );
    assert.equal(res.body.effective_default, 'local:llama');
    assert.equal((await call('GET', '/api/config/providers/local')).body.name, 'Local LLM');
  });

  test('a hand edit made while the service runs shows up on the next GET', async () => {
    const original = fileText();
    writeFileSync(configFile, original.replace('name: Local LLM', 'name: Local LLM (edited)'));
    const res = await call('GET', '/api/config/providers/local');
    assert.equal(res.body.name, 'Local LLM (edited)');
    writeFileSync(configFile, original);
  });
});

describe('provider writes', () => {
  test('replace keeps comments, key order, unknown keys and the stored key', async () => {
    const from = events.mark;
    const res = await call('PUT', '/api/config/providers/local', {
      name: 'Local renamed',
      type: 'compat',
      base_url: 'http://127.0.0.1:1/v2',
      enabled: true,
      models: [
        { id: 'llama', name: 'Llama 3', context_window: 16384 },
        { id: 'qwen', max_output_tokens: 512 },
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.api_key_source, 'file');
    await events.changed('providers', 'local', from);
    const text = fileText();
    for (const kept of [
      /# Hand-written providers file/,
      /# the local model server/,
      /id: local +# keep this comment/,
      /provider: local +# default provider/,
      /x_custom: keep me +# unknown key/,
      /extra_top: 1/,
      /api_key: sk-local-secret-123456/,
    ]) {
      assert.match(text, kept);
    }
    assert.ok(text.indexOf('providers:') < text.indexOf('defaults:') && text.indexOf('defaults:') < text.indexOf('extra_top'));
    const local = parse(text).providers[0];
    assert.equal(local.name, 'Local renamed');
    assert.deepEqual(
      local.models.map((m: any) => [m.id, m.context_window]),
      [
        ['llama', 16384],
        ['qwen', undefined],
      ],
    );
  });

  test('env values sent back are never written into the file', async () => {
    const shown = (await call('GET', '/api/config/providers/envco')).body;
    const res = await call('PUT', '/api/config/providers/envco', {
      name: shown.name,
      type: shown.type,
      base_url: shown.base_url,
      enabled: true,
      models: shown.models,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const text = fileText();
    assert.ok(!text.includes(ENV_KEY) && !text.includes(ENV_URL), text);
    const envco = parse(text).providers.find((p: any) => p.id === 'envco');
    assert.deepEqual([envco.api_key, envco.base_url], ['sk-file-key-shadowed-000', 'http://file.example']);
  });

  test('create, duplicate, new key, delete, unknown id', async () => {
    let from = events.mark;
    const created = await call('POST', '/api/config/providers', valid('crud'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual([created.body.api_key_hint, created.body.api_key_source], ['sk-...6789', 'file']);
    assert.ok(!JSON.stringify(created.body).includes('sk-crud-0123456789'));
    await events.changed('providers', 'crud', from);
    const dup = await call('POST', '/api/config/providers', valid('crud'));
    assert.deepEqual([dup.status, dup.body.error.code, dup.body.error.field], [409, 'conflict', 'id']);
    const rekeyed = await call('PUT', '/api/config/providers/crud', valid('crud', { api_key: 'sk-new-key-999999999' }));
    assert.equal(rekeyed.body.api_key_hint, 'sk-...9999');
    const cleared = await call('PUT', '/api/config/providers/crud', valid('crud', { api_key: '' }));
    assert.deepEqual([cleared.body.api_key_set, cleared.body.api_key_source], [false, 'none']);
    from = events.mark;
    assert.equal((await call('DELETE', '/api/config/providers/crud')).status, 204);
    await events.changed('providers', 'crud', from);
    assert.equal((await call('DELETE', '/api/config/providers/crud')).status, 404);
    assert.equal((await call('PUT', '/api/config/providers/nope', valid('nope'))).status, 404);
    assert.equal((await call('GET', '/api/config/providers/crud')).status, 404);
  });

  test('defaults: set, validated, cleared when their provider is deleted', async () => {
    await call('POST', '/api/config/providers', valid('dflt', { models: [{ id: 'a' }, { id: 'b' }] }));
    await call('POST', '/api/config/providers', valid('off', { enabled: false }));
    const from = events.mark;
    const ok = await call('PUT', '/api/config/defaults', { provider: 'dflt', model: 'b' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.effective_default, 'dflt:b');
    await events.changed('defaults', null, from);
    assert.ok(fileText().includes('# default provider'));
    const bad: [unknown, string, RegExp][] = [
      [{ provider: 'ghost', model: 'a' }, 'provider', /configured provider/],
      [{ provider: 'off', model: 'm1' }, 'provider', /enabled/],
      [{ provider: 'dflt', model: 'zzz' }, 'model', /one of the models/],
      [{ provider: 'dflt' }, 'model', /model/],
    ];
    for (const [body, field, message] of bad) {
      const res = await call('PUT', '/api/config/defaults', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.field, field);
      assert.match(res.body.error.message, message);
    }
    await call('DELETE', '/api/config/providers/dflt');
    const after = (await call('GET', '/api/config/providers')).body;
    assert.deepEqual(after.defaults, { provider: null, model: null });
  });

  test('every validation rule answers 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [valid('../x'), 'id', /id must be/],
      [{ ...valid('v1'), name: '' }, 'name', /name must not be empty/],
      [{ ...valid('v2'), type: 'openai' }, 'type', /type must be one of compat, native, responsemode/],
      [{ ...valid('v3'), base_url: 'http://127.0.0.1:9/v1/' }, 'base_url', /base_url must not end with a trailing slash/],
      [{ ...valid('v4'), base_url: 'localhost:8080' }, 'base_url', /absolute http\(s\) URL/],
      [{ ...valid('v5'), enabled: 'yes' }, 'enabled', /enabled must be true or false/],
      [
        { ...valid('v6'), models: [{ id: 'm', context_window: 0 }] },
        'models[0].context_window',
        /models\[0\]\.context_window must be a positive integer/,
      ],
      [{ ...valid('v7'), models: [{ id: 'm', max_output_tokens: 1.5 }] }, 'models[0].max_output_tokens', /positive integer/],
      [{ ...valid('v8'), models: [{ id: 'm' }, { id: 'm' }] }, 'models[1].id', /unique/],
      [{ ...valid('v9'), models: [{ id: 'm', supports_tools: 'y' }] }, 'models[0].supports_tools', /true or false/],
      [{ ...valid('v10'), api_key: 42 }, 'api_key', /api_key must be a string/],
    ];
    for (const [body, field, message] of cases) {
      const res = await call('POST', '/api/config/providers', body);
      assert.equal(res.status, 400, `${field}: ${JSON.stringify(res.body)}`);
      assert.deepEqual([res.body.error.code, res.body.error.field], ['validation_failed', field]);
      assert.match(res.body.error.message, message);
    }
    const mismatch = await call('PUT', '/api/config/providers/local', valid('other'));
    assert.deepEqual([mismatch.status, mismatch.body.error.field], [400, 'id']);
    assert.ok(!parse(fileText()).providers.some((p: any) => /^v\d/.test(p.id)));
  });

  test('parallel creates are all kept', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `par${i}`);
    const results = await Promise.all(ids.map((id) => call('POST', '/api/config/providers', valid(id))));
    assert.deepEqual(
      results.map((r) => r.status),
      ids.map(() => 201),
    );
    const inFile = parse(fileText()).providers.map((p: any) => p.id);
    for (const id of ids) assert.ok(inFile.includes(id), `${id} lost`);
    assert.ok(fileText().includes('# keep this comment'));
  });
});

describe('a config.yaml that fails to parse', () => {
  test('is reported, refused with 409 and left byte-identical until fixed by hand', async () => {
    const good = fileText();
    const broken = `${good}\n  bad: [unclosed\n`;
    writeFileSync(configFile, broken);
    const shown = await call('GET', '/api/config/providers');
    assert.equal(shown.status, 200);
    assert.ok(shown.body.errors.length > 0 && shown.body.errors[0].line > 0, JSON.stringify(shown.body.errors));
    for (const [method, p, body] of [
      ['POST', '/api/config/providers', valid('late')],
      ['PUT', '/api/config/providers/local', valid('local')],
      ['DELETE', '/api/config/providers/local', undefined],
      ['PUT', '/api/config/defaults', { provider: 'local', model: 'llama' }],
    ] as const) {
      const res = await call(method, p, body);
      assert.equal(res.status, 409, `${method} ${p}`);
      assert.equal(res.body.error.code, 'config_invalid');
      assert.match(res.body.error.message, /config\.yaml:\d+/);
    }
    assert.equal(readFileSync(configFile, 'utf8'), broken);
    writeFileSync(configFile, good);
    assert.equal((await call('POST', '/api/config/providers', valid('late'))).status, 201);
  });
});
