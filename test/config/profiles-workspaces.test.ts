import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api, startPaired, type BackendProcess } from '../helpers/backend-process.js';
import { EventClient, rawCall, seededDataDir } from './config-helpers.js';

const CONFIG = `providers:
  - id: p1
    name: P One
    type: compat
    base_url: http://127.0.0.1:9/v1
    models:
      - {id: think, supports_thinking: true}
      - {id: plain}
defaults: {provider: p1, model: plain}
`;
const HAND_PROFILE = `# my profile, written by hand
language: en   # UI in English
my_note: keep this unknown key
compression:
  threshold_percent: 70  # compress earlier
`;

let proc: BackendProcess;
let credential: string;
let events: EventClient;
let dataDir: string;
const call = (method: string, p: string, body?: unknown) => api(proc.url, method, p, { credential, body });
const read = (rel: string) => readFileSync(path.join(dataDir, rel), 'utf8');

before(async () => {
  dataDir = seededDataDir({ 'config.yaml': CONFIG, 'profiles/hand.yaml': HAND_PROFILE });
  ({ proc, credential } = await startPaired({ dataDir }));
  events = await EventClient.open(proc.url, credential);
});

after(async () => {
  events?.close();
  await proc?.stop();
  proc?.cleanup();
});

describe('profiles', () => {
  test('defaults are filled in on read', async () => {
    const from = events.mark;
    const created = await call('PUT', '/api/profiles/fresh', {});
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await events.changed('profiles', 'fresh', from);
    const { id, model, model_is_default, language, timeout_seconds, thinking, cache, compression, errors } = (
      await call('GET', '/api/profiles/fresh')
    ).body;
    assert.deepEqual(
      { id, model, model_is_default, language, timeout_seconds, thinking, cache, compression, errors },
      {
        id: 'fresh',
        model: 'p1:plain',
        model_is_default: true,
        language: 'system',
        timeout_seconds: 600,
        thinking: { enabled: false, budget: 8192 },
        cache: { enabled: true, cache_threshold: 3 },
        compression: { enabled: true, threshold_percent: 80, cooldown_seconds: 60 },
        errors: [],
      },
    );
    const hand = (await call('GET', '/api/profiles/hand')).body;
    assert.deepEqual([hand.language, hand.compression.threshold_percent, hand.compression.cooldown_seconds], ['en', 70, 60]);
    const list = (await call('GET', '/api/profiles')).body.profiles.map((p: any) => p.id);
    assert.deepEqual(list, ['fresh', 'hand']);
  });

  test('create with POST, replace with PUT, duplicate, delete', async () => {
    const posted = await call('POST', '/api/profiles', { id: 'writer', model: 'p1:think', thinking: { enabled: true, budget: 4096 } });
    assert.equal(posted.status, 201, JSON.stringify(posted.body));
    assert.deepEqual([posted.body.model, posted.body.thinking], ['p1:think', { enabled: true, budget: 4096 }]);
    assert.equal((await call('POST', '/api/profiles', { id: 'writer' })).status, 409);
    const replaced = await call('PUT', '/api/profiles/writer', { language: 'zh', timeout_seconds: 30 });
    assert.equal(replaced.status, 200);
    assert.deepEqual(
      [replaced.body.language, replaced.body.timeout_seconds, replaced.body.thinking.enabled, replaced.body.model_is_default],
      ['zh', 30, false, true],
    );
    const from = events.mark;
    assert.equal((await call('DELETE', '/api/profiles/writer')).status, 204);
    await events.changed('profiles', 'writer', from);
    assert.equal((await call('GET', '/api/profiles/writer')).status, 404);
    assert.equal((await call('DELETE', '/api/profiles/writer')).status, 404);
  });

  test('an API edit keeps comments, key order and unknown keys of a hand-written profile', async () => {
    const res = await call('PUT', '/api/profiles/hand', {
      language: 'zh',
      my_note: 'keep this unknown key',
      compression: { threshold_percent: 90 },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const text = read('profiles/hand.yaml');
    for (const kept of [
      /^# my profile, written by hand/,
      /language: zh +# UI in English/,
      /my_note: keep this unknown key/,
      /threshold_percent: 90 +# compress earlier/,
    ])
      assert.match(text, kept);
    assert.ok(text.indexOf('language') < text.indexOf('my_note') && text.indexOf('my_note') < text.indexOf('compression'));
  });

  test('every validation rule answers 400 naming the field and the rule', async () => {
    const cases: [unknown, string, RegExp][] = [
      [
        { compression: { threshold_percent: 49 } },
        'compression.threshold_percent',
        /^compression\.threshold_percent must be between 50 and 95$/,
      ],
      [{ compression: { threshold_percent: 96 } }, 'compression.threshold_percent', /between 50 and 95/],
      [{ compression: { threshold_percent: 80.5 } }, 'compression.threshold_percent', /integer/],
      [{ compression: { cooldown_seconds: -1 } }, 'compression.cooldown_seconds', /non-negative integer/],
      [{ compression: 'on' }, 'compression', /compression must be a mapping/],
      [{ timeout_seconds: 0 }, 'timeout_seconds', /timeout_seconds must be a positive integer/],
      // Above 2,147,483 s Node's timers overflow and fire at once: every turn would time out immediately.
      [{ timeout_seconds: 2_147_484 }, 'timeout_seconds', /^timeout_seconds must be between 1 and 86400$/],
      [{ timeout_seconds: 86_401 }, 'timeout_seconds', /between 1 and 86400/],
      [{ thinking: { budget: -5 } }, 'thinking.budget', /thinking\.budget must be a positive integer/],
      [{ thinking: { enabled: 'yes' } }, 'thinking.enabled', /true or false/],
      [{ cache: { cache_threshold: 0 } }, 'cache.cache_threshold', /positive integer/],
      [{ cache: { enabled: 1 } }, 'cache.enabled', /true or false/],
      [{ language: 'fr' }, 'language', /language must be one of zh, en, system/],
      [{ model: 'no-colon' }, 'model', /<providerId>:<modelId>/],
      [{ model: 'p1:ghost' }, 'model', /configured provider/],
      [{ model: 'p1:plain', thinking: { enabled: true } }, 'thinking.enabled', /supports_thinking/],
      [{ thinking: { enabled: true } }, 'thinking.enabled', /p1:plain does not support it/],
    ];
    for (const [body, field, message] of cases) {
      const res = await call('PUT', '/api/profiles/checked', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
      assert.deepEqual([res.body.error.code, res.body.error.field], ['validation_failed', field]);
      assert.match(res.body.error.message, message);
    }
    for (const bad of ['%2E%2E', '..%2Fconfig', 'a%5Cb', 'x%00y', '..']) {
      const res = await rawCall(proc, credential, 'PUT', `/api/profiles/${bad}`, {});
      assert.deepEqual([res.status, res.body.error?.field], [400, 'id'], bad);
    }
    assert.equal((await call('GET', '/api/profiles/checked')).status, 404);
    assert.ok(!existsSync(path.join(dataDir, 'config.yaml.yaml')));
  });

  test('a profile file that fails to parse is shown with its error and never overwritten', async () => {
    const broken = 'language: en\ncompression: [80\n';
    writeFileSync(path.join(dataDir, 'profiles/broken.yaml'), broken);
    const shown = (await call('GET', '/api/profiles/broken')).body;
    assert.ok(shown.errors.length > 0 && shown.errors[0].file.endsWith('broken.yaml'), JSON.stringify(shown));
    const res = await call('PUT', '/api/profiles/broken', { language: 'zh' });
    assert.deepEqual([res.status, res.body.error.code], [409, 'config_invalid']);
    assert.match(res.body.error.message, /broken\.yaml/);
    assert.equal(read('profiles/broken.yaml'), broken);
    writeFileSync(path.join(dataDir, 'profiles/broken.yaml'), 'language: en\n');
    assert.equal((await call('PUT', '/api/profiles/broken', { language: 'zh' })).status, 200);
  });
});

describe('workspaces', () => {
  test('create, get, rename, bind, list', async () => {
    let from = events.mark;
    const created = await call('POST', '/api/workspaces', { name: '  Alpha  ' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { id } = created.body;
    assert.match(id, /^ws-[0-9a-f]{12}$/);
    assert.deepEqual([created.body.name, created.body.profile_id], ['Alpha', null]);
    await events.changed('workspaces', id, from);
    assert.ok(existsSync(path.join(dataDir, 'workspaces', id, 'sessions')));
    assert.deepEqual(
      JSON.parse(read('workspaces.json')).workspaces.find((w: any) => w.id === id),
      created.body,
    );
    from = events.mark;
    const renamed = await call('PUT', `/api/workspaces/${id}`, { name: 'Beta', profile_id: 'fresh' });
    assert.deepEqual([renamed.status, renamed.body.name, renamed.body.profile_id], [200, 'Beta', 'fresh']);
    await events.changed('workspaces', id, from);
    const meta = JSON.parse(read(`workspaces/${id}/workspace.json`));
    assert.deepEqual([meta.id, meta.name, meta.profile_id, meta.created_at], [id, 'Beta', 'fresh', created.body.created_at]);
    const got = (await call('GET', `/api/workspaces/${id}`)).body;
    assert.deepEqual([got.name, got.profile_id], ['Beta', 'fresh']);
    assert.ok((await call('GET', '/api/workspaces')).body.workspaces.some((w: any) => w.id === id && w.name === 'Beta'));
  });

  test('deleting a profile a workspace uses is a 409 naming the workspace', async () => {
    const ws = (await call('POST', '/api/workspaces', { name: 'Uses hand', profile_id: 'hand' })).body;
    const res = await call('DELETE', '/api/profiles/hand');
    assert.equal(res.status, 409);
    assert.match(res.body.error.message, new RegExp(`Uses hand \\(${ws.id}\\)`));
    assert.ok(existsSync(path.join(dataDir, 'profiles/hand.yaml')));
    await call('PUT', `/api/workspaces/${ws.id}`, { profile_id: null });
    assert.equal((await call('DELETE', '/api/profiles/hand')).status, 204);
  });

  test('delete moves the folder, session history included, into trash/', async () => {
    const { id } = (await call('POST', '/api/workspaces', { name: 'Doomed' })).body;
    writeFileSync(path.join(dataDir, 'workspaces', id, 'sessions', 's1.json'), '{"messages":[]}');
    const from = events.mark;
    const res = await call('DELETE', `/api/workspaces/${id}`);
    assert.equal(res.status, 200);
    await events.changed('workspaces', id, from);
    assert.match(res.body.trashed_to, /^trash\/workspace-ws-/);
    assert.equal(readFileSync(path.join(dataDir, res.body.trashed_to, 'sessions', 's1.json'), 'utf8'), '{"messages":[]}');
    assert.ok(!existsSync(path.join(dataDir, 'workspaces', id)));
    assert.equal((await call('GET', `/api/workspaces/${id}`)).status, 404);
    assert.equal((await call('DELETE', `/api/workspaces/${id}`)).status, 404);
  });

  test('validation and path-escape attempts', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/workspaces', { name: '' }, 'name'],
      ['POST', '/api/workspaces', { name: 5 }, 'name'],
      ['POST', '/api/workspaces', { name: 'x'.repeat(101) }, 'name'],
      ['POST', '/api/workspaces', { name: 'ok', profile_id: 'ghost' }, 'profile_id'],
      // profiles/../config.yaml exists: a profile id must never leave profiles/.
      ['POST', '/api/workspaces', { name: 'ok', profile_id: '../config' }, 'profile_id'],
      ['POST', '/api/workspaces', { name: 'ok', profile_id: 'a/b' }, 'profile_id'],
      ['POST', '/api/workspaces', { name: 'ok', profile_id: '..' }, 'profile_id'],
      ['PUT', '/api/workspaces/ws-000000000000', {}, 'name'],
      ['GET', '/api/workspaces/%2E%2E', undefined, 'id'],
      ['DELETE', '/api/workspaces/..%2F..%2Fprofiles', undefined, 'id'],
      ['PUT', '/api/workspaces/a%5Cb', { name: 'x' }, 'id'],
      ['GET', '/api/workspaces/x%00y', undefined, 'id'],
      ['GET', '/api/workspaces/%2Fetc', undefined, 'id'],
      ['PUT', '/api/workspaces/..', { name: 'x' }, 'id'],
    ];
    for (const [method, p, body, field] of cases) {
      const res = await rawCall(proc, credential, method, p, body);
      assert.deepEqual([res.status, res.body.error?.field], [400, field], `${method} ${p}`);
    }
    assert.ok(existsSync(path.join(dataDir, 'profiles/fresh.yaml')));
  });

  test('parallel creates are all kept in workspaces.json', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => call('POST', '/api/workspaces', { name: `par ${i}` })));
    assert.deepEqual(
      results.map((r) => r.status),
      Array(8).fill(201),
    );
    const names = JSON.parse(read('workspaces.json')).workspaces.map((w: any) => w.name);
    for (let i = 0; i < 8; i++) assert.ok(names.includes(`par ${i}`));
  });
});
