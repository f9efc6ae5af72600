import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startPaired, type BackendProcess } from '../helpers/backend-process.js';
import { answer, FakeAggregator, json } from '../swap/fake-aggregator.js';
import { swapYaml } from '../swap/swap-yaml-fixture.js';
import { isEnvelope, keepAliveAgent, pool, send, swapListener, type Reply, type SendOptions } from './harness.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_121);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20_000);
const CONCURRENCY = 16;
/** The swap listener's documented server-side failures (upstream down, setting missing). */
const DOCUMENTED_5XX = new Set(['upstream_error', 'config_missing']);

const USDT = '0x55d398326f99059fF775485246999027B3197955';
const USDC = '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d';
const SENDER = '0x1111111111111111111111111111111111111111';
const SKILL = '---\nname: fz\ndescription: fuzz\n---\nbody\n';

type Listener = 'api' | 'swap';
interface Endpoint {
  listener: Listener;
  method: string;
  path: string;
  body?: Record<string, unknown>;
}

/** Every route of both listeners; `:id` is filled by the generator. */
const ENDPOINTS: Endpoint[] = [
  { listener: 'api', method: 'GET', path: '/health' },
  { listener: 'api', method: 'GET', path: '/api/version' },
  { listener: 'api', method: 'GET', path: '/api/pairing/status' },
  { listener: 'api', method: 'POST', path: '/api/pairing/claim', body: { pairing_code: '123456', display_name: 'x' } },
  { listener: 'api', method: 'GET', path: '/api/config/providers' },
  { listener: 'api', method: 'GET', path: '/api/config/providers/:id' },
  {
    listener: 'api',
    method: 'POST',
    path: '/api/config/providers',
    body: {
      id: 'fz',
      name: 'Fz',
      type: 'compat',
      base_url: 'http://127.0.0.1:1',
      enabled: true,
      models: [{ id: 'm', name: 'M', context_window: 1000, supports_thinking: false, supports_tools: true }],
    },
  },
  {
    listener: 'api',
    method: 'PUT',
    path: '/api/config/providers/:id',
    body: { name: 'Fz', type: 'native', api_key: 'sk-fuzz', models: [] },
  },
  { listener: 'api', method: 'DELETE', path: '/api/config/providers/:id' },
  { listener: 'api', method: 'PUT', path: '/api/config/defaults', body: { provider: 'local', model: 'm' } },
  { listener: 'api', method: 'POST', path: '/api/config/providers/local/test', body: { timeout_ms: 200, import_models: false } },
  { listener: 'api', method: 'GET', path: '/api/profiles' },
  { listener: 'api', method: 'GET', path: '/api/profiles/:id' },
  {
    listener: 'api',
    method: 'POST',
    path: '/api/profiles',
    body: { id: 'fz', language: 'en', timeout_seconds: 60, compression: { enabled: true, threshold_percent: 80 } },
  },
  {
    listener: 'api',
    method: 'PUT',
    path: '/api/profiles/:id',
    body: { language: 'zh', thinking: { enabled: false, budget: 100 }, cache: { enabled: true, cache_threshold: 2 } },
  },
  { listener: 'api', method: 'DELETE', path: '/api/profiles/:id' },
  { listener: 'api', method: 'GET', path: '/api/workspaces' },
  { listener: 'api', method: 'POST', path: '/api/workspaces', body: { name: 'fz', profile_id: null } },
  { listener: 'api', method: 'GET', path: '/api/workspaces/:id' },
  { listener: 'api', method: 'PUT', path: '/api/workspaces/:id', body: { name: 'renamed' } },
  { listener: 'api', method: 'DELETE', path: '/api/workspaces/:id' },
  { listener: 'api', method: 'GET', path: '/api/mcp/global' },
  {
    listener: 'api',
    method: 'PUT',
    path: '/api/mcp/global',
    body: { mcpServers: { a: { command: 'node', args: ['x'], env: { K: 'v' } }, b: { type: 'http', url: 'http://127.0.0.1:9' } } },
  },
  { listener: 'api', method: 'GET', path: '/api/workspaces/:id/mcp' },
  { listener: 'api', method: 'PUT', path: '/api/workspaces/:id/mcp', body: { mcpServers: {} } },
  { listener: 'api', method: 'GET', path: '/api/skills' },
  { listener: 'api', method: 'GET', path: '/api/skills/:id' },
  { listener: 'api', method: 'PUT', path: '/api/skills/:id', body: { content: SKILL } },
  { listener: 'api', method: 'DELETE', path: '/api/skills/:id' },
  { listener: 'api', method: 'GET', path: '/api/logs' },
  // Fuzzed without a valid credential: with one they would end the run's own session.
  { listener: 'api', method: 'POST', path: '/api/selfhost/credential/rotate' },
  { listener: 'api', method: 'POST', path: '/api/selfhost/pairing/reset' },
  { listener: 'api', method: 'GET', path: '/:id' },
  { listener: 'swap', method: 'GET', path: '/health' },
  {
    listener: 'swap',
    method: 'POST',
    path: '/api/v1/route/build',
    body: {
      chain: 'bsc',
      tokenIn: USDT,
      tokenOut: USDC,
      amountIn: '1000000',
      sender: SENDER,
      slippageTolerance: 50,
      includedSources: ['swapa'],
    },
  },
  { listener: 'swap', method: 'GET', path: '/:id' },
];

const HOSTILE_IDS = [
  '..',
  '%2e%2e',
  '..%2F..%2Fetc',
  '%00',
  '%',
  '%E0%A4%A',
  'a%2Fb',
  'CON',
  'x'.repeat(300),
  '%F0%9F%98%80',
  'local',
  'fz',
  'fz.yaml',
  '.tmp-x',
];

const jsonish = fc.jsonValue({ maxDepth: 4 });
const idArb = fc.oneof(
  fc.constantFrom(...HOSTILE_IDS),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/),
);
const bodyArb = (template: Record<string, unknown> | undefined) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...Object.keys(template ?? { x: 0 })), jsonish, fc.boolean()).map(([k, v, drop]) => {
        const b: Record<string, unknown> = { ...(template ?? {}) };
        if (drop) delete b[k];
        else b[k] = v;
        return JSON.stringify(b);
      }),
    },
    { weight: 2, arbitrary: jsonish.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 120 }).map((a) => Buffer.from(a)) },
    { weight: 1, arbitrary: fc.nat(40).map((n) => JSON.stringify(template ?? {}).slice(0, n)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
const headerName = fc.stringMatching(/^x-[a-z0-9-]{1,12}$/);
const headerValue = fc.stringMatching(/^[ -~]{0,40}$/).map((v) => v.trim());

const requestArb = fc
  .record({
    endpoint: fc.constantFrom(...ENDPOINTS),
    id: idArb,
    body: fc.constant(null),
    contentType: fc.constantFrom(
      ...Array(10).fill('application/json'),
      'application/json; charset=utf-8',
      'application/json; charset=utf-16',
      'application/JSON',
      'text/plain',
      'application/x-www-form-urlencoded',
      '',
    ),
    query: fc.dictionary(fc.constantFrom('since', 'x', 'service_credential', 'a[b]', ''), fc.string({ maxLength: 12 }), { maxKeys: 3 }),
    headers: fc.dictionary(headerName, headerValue, { maxKeys: 3 }),
    auth: fc.constantFrom(...Array(8).fill('valid'), 'none', 'garbage', 'x-header'),
    // Mostly acceptable Host/Origin, so that most requests get past the guard to the handlers.
    host: fc.constantFrom(...Array(30).fill('ok'), 'localhost', 'evil.com', ''),
    origin: fc.constantFrom(...Array(30).fill(undefined), 'app://renderer', 'https://evil.com', 'null'),
  })
  .chain((r) => bodyArb(r.endpoint.body).map((body) => ({ ...r, body })));

type FuzzRequest = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

const agg = new FakeAggregator();
let proc: BackendProcess;
let credential: string;
let ports: Record<Listener, number>;
const agents = { api: keepAliveAgent(CONCURRENCY), swap: keepAliveAgent(CONCURRENCY) };

function toOptions(r: FuzzRequest): SendOptions {
  const { endpoint } = r;
  const port = ports[endpoint.listener];
  const query = new URLSearchParams(r.query).toString();
  const headers: Record<string, string> = { ...r.headers };
  if (r.contentType && r.body !== undefined) headers['content-type'] = r.contentType;
  const selfhost = endpoint.path.startsWith('/api/selfhost/');
  if (r.auth === 'valid' && !selfhost) headers.authorization = `Bearer ${credential}`;
  if (r.auth === 'garbage' || (r.auth === 'valid' && selfhost)) headers.authorization = `Bearer svc_${'x'.repeat(43)}`;
  if (r.auth === 'x-header') headers['x-service-credential'] = selfhost ? 'nope' : credential;
  headers.host = r.host === 'ok' ? `127.0.0.1:${port}` : r.host;
  if (r.origin) headers.origin = r.origin;
  return {
    method: endpoint.method,
    path: endpoint.path.replace(':id', r.id) + (query ? `?${query}` : ''),
    headers,
    body: r.body,
    agent: agents[endpoint.listener],
    timeoutMs: 15_000,
  };
}

/** The contract every answer must keep, whatever was sent. */
function check(r: Reply, listener: Listener, label: string): void {
  if (r.status >= 500) {
    assert.ok(
      listener === 'swap' && DOCUMENTED_5XX.has(r.json?.error?.code),
      `undocumented ${r.status} for ${label}: ${r.text.slice(0, 300)}`,
    );
  }
  if (r.status >= 400) assert.ok(isEnvelope(r.json), `not the error envelope (${r.status}) for ${label}: ${r.text.slice(0, 200)}`);
}

before(async () => {
  await agg.start();
  // Answers whatever pair it is asked for with one pancake hop.
  agg.reply = (url, res) => {
    const tokenIn = url.searchParams.get('tokenIn') ?? USDT;
    const tokenOut = url.searchParams.get('tokenOut') ?? USDC;
    const amountIn = BigInt(url.searchParams.get('amountIn') ?? '1');
    json(
      res,
      200,
      answer(tokenIn, tokenOut, amountIn, [
        [
          {
            pool: '0x16b9a82891338f9ba80e2d6970fdda79d1eb0dae',
            tokenIn,
            tokenOut,
            swapAmount: amountIn.toString(),
            amountOut: (amountIn / 2n + 1n).toString(),
            exchange: 'pancake',
            poolType: 'pancake',
          },
        ],
      ]),
    );
  };
  ({ proc, credential } = await startPaired({ env: { EXPRESS_MODE: 'release' } }));
  writeFileSync(path.join(proc.dataDir, 'swap.yaml'), swapYaml(agg.url));
  ports = { api: proc.port, swap: (await swapListener(proc)).port };
  const seed = await send(ports.api, {
    method: 'POST',
    path: '/api/config/providers',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'local', name: 'Local', type: 'compat', base_url: 'http://127.0.0.1:1', models: [{ id: 'm', name: 'M' }] }),
  });
  assert.equal(seed.status, 201, seed.text);
});

after(async () => {
  agents.api.destroy();
  agents.swap.destroy();
  await proc.stop();
  proc.cleanup();
  await agg.stop();
});

describe('fuzzing both listeners', () => {
  it(`${RUNS} generated requests (seed ${SEED}): no undocumented 5xx, envelopes only, no hang, still healthy`, async () => {
    console.log(`fuzz seed ${SEED}, ${RUNS} requests (FUZZ_SEED / FUZZ_RUNS to replay)`);
    const requests = fc.sample(requestArb, { seed: SEED, numRuns: RUNS });
    const statuses = new Map<number, number>();
    await pool(requests, CONCURRENCY, async (r, i) => {
      const options = toOptions(r);
      const label = `#${i} ${options.method} ${options.path} ${JSON.stringify(options.headers)} ${String(options.body).slice(0, 120)}`;
      const reply = await send(ports[r.endpoint.listener], options);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      check(reply, r.endpoint.listener, label);
    });
    console.log(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.equal(proc.exitCode, null, 'the process is still running');
    for (const port of [ports.api, ports.swap]) assert.equal((await send(port, { path: '/health' })).status, 200);
    const providers = await send(ports.api, { path: '/api/config/providers', headers: { authorization: `Bearer ${credential}` } });
    assert.equal(providers.status, 200, 'the credential still works');
    assert.deepEqual(providers.json.errors, [], 'config.yaml still parses');
    assert.ok(!proc.lines.some((l) => /^error: (?!swap:)/.test(l.line)), 'no internal error was logged');
  });

  it('fuzzes the claim while unpaired: 400/401/429 envelopes only', async () => {
    const reset = await send(ports.api, {
      method: 'POST',
      path: '/api/selfhost/pairing/reset',
      headers: { authorization: `Bearer ${credential}` },
    });
    assert.equal(reset.status, 200);
    const claimArb = fc.oneof(
      fc
        .record(
          {
            pairing_code: fc.oneof(fc.stringMatching(/^\d{6}$/), jsonish),
            bootstrap_secret: fc.option(jsonish, { nil: undefined }),
            display_name: fc.option(jsonish, { nil: undefined }),
          },
          { requiredKeys: [] },
        )
        .map((b) => JSON.stringify(b)),
      jsonish.map((v) => JSON.stringify(v)),
    );
    const bodies = fc.sample(claimArb, { seed: SEED + 1, numRuns: 2000 });
    await pool(bodies, CONCURRENCY, async (body) => {
      const r = await send(ports.api, {
        method: 'POST',
        path: '/api/pairing/claim',
        headers: { 'content-type': 'application/json' },
        body,
        agent: agents.api,
      });
      if (r.status === 200) return; // a fuzzed code can be right once in a million
      assert.ok([400, 401, 409, 413, 429].includes(r.status), `${r.status} for ${body}: ${r.text}`);
      assert.ok(isEnvelope(r.json), r.text);
    });
    assert.equal((await send(ports.api, { path: '/api/pairing/status' })).status, 200);
  });
});
