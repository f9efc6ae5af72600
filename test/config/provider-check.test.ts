import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { api, startPaired, type BackendProcess } from '../helpers/backend-process.js';
import { EventClient } from './config-helpers.js';

const OPENAI_KEY = 'sk-openai-good-key-1234';
const CLAUDE_KEY = 'sk-ant-good-key-5678';

interface Fake {
  server: http.Server;
  base: string;
  seen: http.IncomingHttpHeaders[];
}

/** Starts a 127.0.0.1 server; `handler` answers as the real API would. */
async function fake(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Fake> {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/** OpenAI-style listing (chat completions and Responses APIs): GET {base}/models with Bearer. */
const openAiLike = (req: http.IncomingMessage, res: http.ServerResponse) => {
  if (req.method !== 'GET' || req.url !== '/v1/models')
    return json(res, 404, { error: { message: 'Unknown path', type: 'invalid_request_error' } });
  if (req.headers.authorization !== `Bearer ${OPENAI_KEY}`)
    return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
  json(res, 200, {
    object: 'list',
    data: [
      { id: 'gpt-4o', object: 'model', owned_by: 'system' },
      { id: 'gpt-4o-mini', object: 'model', owned_by: 'system' },
    ],
  });
};

/** Claude messages API: GET /v1/models with x-api-key and anthropic-version. */
const claudeLike = (req: http.IncomingMessage, res: http.ServerResponse) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (req.method !== 'GET' || url.pathname !== '/v1/models')
    return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'Not found' } });
  if (!req.headers['anthropic-version'])
    return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version header is required' } });
  if (req.headers['x-api-key'] !== CLAUDE_KEY)
    return json(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
  json(res, 200, {
    data: [
      { type: 'model', id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
      { type: 'model', id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z' },
    ],
    has_more: false,
    first_id: 'claude-sonnet-4-5',
    last_id: 'claude-haiku-4-5',
  });
};

let proc: BackendProcess;
let credential: string;
let openai: Fake;
let claude: Fake;
let silent: Fake;
let closedPort: number;
const call = (method: string, p: string, body?: unknown) => api(proc.url, method, p, { credential, body });
const provider = (id: string, type: string, base_url: string, api_key: string) =>
  call('POST', '/api/config/providers', { id, name: id, type, base_url, api_key, models: [{ id: 'existing' }] });

before(async () => {
  openai = await fake(openAiLike);
  claude = await fake(claudeLike);
  silent = await fake(() => undefined); // accepts and never answers
  const probe = await fake(() => undefined);
  closedPort = (probe.server.address() as AddressInfo).port;
  await new Promise((resolve) => probe.server.close(resolve));
  ({ proc, credential } = await startPaired());
  await provider('oa', 'compat', `${openai.base}/v1`, OPENAI_KEY);
  await provider('oa-bad', 'compat', `${openai.base}/v1`, 'sk-wrong-key-000000');
  await provider('resp', 'responsemode', `${openai.base}/v1`, OPENAI_KEY);
  await provider('claude', 'native', claude.base, CLAUDE_KEY);
  await provider('claude-v1', 'native', `${claude.base}/v1`, CLAUDE_KEY);
  await provider('claude-bad', 'native', claude.base, 'sk-ant-wrong-000000');
  await provider('slow', 'compat', silent.base, OPENAI_KEY);
  await provider('wrong-path', 'compat', `${openai.base}/nothing`, OPENAI_KEY);
  await provider('down', 'compat', `http://127.0.0.1:${closedPort}/v1`, OPENAI_KEY);
});

after(async () => {
  await proc?.stop();
  proc?.cleanup();
  for (const f of [openai, claude, silent]) {
    f?.server.closeAllConnections();
    f?.server.close();
  }
});

test('compat and responsemode: Bearer auth, model list', async () => {
  for (const id of ['oa', 'resp']) {
    const res = await call('POST', `/api/config/providers/${id}/test`, {});
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.ok, res.body.models, res.body.error], [true, ['gpt-4o', 'gpt-4o-mini'], null]);
    assert.equal(typeof res.body.latency_ms, 'number');
  }
  assert.equal(openai.seen.at(-1)?.authorization, `Bearer ${OPENAI_KEY}`);
});

test('native: x-api-key and anthropic-version, with or without /v1 in base_url', async () => {
  for (const id of ['claude', 'claude-v1']) {
    const res = await call('POST', `/api/config/providers/${id}/test`);
    assert.deepEqual([res.body.ok, res.body.models], [true, ['claude-sonnet-4-5', 'claude-haiku-4-5']], JSON.stringify(res.body));
  }
  const headers = claude.seen.at(-1)!;
  assert.equal(headers['x-api-key'], CLAUDE_KEY);
  assert.equal(headers['anthropic-version'], '2023-06-01');
  assert.equal(headers.authorization, undefined);
});

test('a wrong key is reported as 401 for each protocol', async () => {
  for (const id of ['oa-bad', 'claude-bad']) {
    const res = await call('POST', `/api/config/providers/${id}/test`);
    assert.equal(res.body.ok, false);
    assert.deepEqual([res.body.error.code, res.body.error.status], ['unauthorized', 401], id);
    assert.ok(!JSON.stringify(res.body).includes('sk-'), 'key echoed');
  }
});

test('timeout, 404 and unreachable are named', async () => {
  const slow = await call('POST', '/api/config/providers/slow/test', { timeout_ms: 300 });
  assert.equal(slow.body.error.code, 'timeout');
  assert.ok(slow.body.latency_ms >= 290 && slow.body.latency_ms < 5000, String(slow.body.latency_ms));
  const missing = await call('POST', '/api/config/providers/wrong-path/test');
  assert.deepEqual([missing.body.error.code, missing.body.error.status], ['not_found', 404]);
  const down = await call('POST', '/api/config/providers/down/test');
  assert.equal(down.body.error.code, 'unreachable');
  assert.match(down.body.error.message, /ECONNREFUSED/);
  const badOption = await call('POST', '/api/config/providers/oa/test', { timeout_ms: 5 });
  assert.deepEqual([badOption.status, badOption.body.error.field], [400, 'timeout_ms']);
  assert.equal((await call('POST', '/api/config/providers/ghost/test')).status, 404);
});

test('import_models merges the remote list into the provider', async () => {
  const events = await EventClient.open(proc.url, credential);
  try {
    const from = events.mark;
    const res = await call('POST', '/api/config/providers/claude/test', { import_models: true });
    assert.deepEqual(res.body.imported, ['claude-sonnet-4-5', 'claude-haiku-4-5']);
    await events.changed('providers', 'claude', from);
    const shown = (await call('GET', '/api/config/providers/claude')).body;
    assert.deepEqual(
      shown.models.map((m: any) => [m.id, m.name ?? null]),
      [
        ['existing', null],
        ['claude-sonnet-4-5', 'Claude Sonnet 4.5'],
        ['claude-haiku-4-5', 'Claude Haiku 4.5'],
      ],
    );
    const again = await call('POST', '/api/config/providers/claude/test', { import_models: true });
    assert.deepEqual(again.body.imported, []);
  } finally {
    events.close();
  }
});
