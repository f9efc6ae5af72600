import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { api, BackendProcess, tempDir } from '../helpers/backend-process.js';
import { checkCalldata, NATIVE } from './check-calldata.js';
import { answer, FakeAggregator, json, type Entry } from './fake-aggregator.js';
import { swapYaml, ADAPTERS, ROUTER, TOKEN_APPROVE, V4_ADAPTER } from './swap-yaml-fixture.js';

const USDT = '0x55d398326f99059fF775485246999027B3197955';
const USDC = '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d';
const BUSD = '0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56';
const WBNB = '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c';
const SENDER = '0x1111111111111111111111111111111111111111';
const OTHER = '0x2222222222222222222222222222222222222222';
const P1 = '0x16b9a82891338f9bA80E2D6970FddA79D1eb0daE';
const P2 = '0x36696169C63e42cd08ce11f5deeBbCeBae652050';
const P3 = '0x7EB5D86FD78f3852a3e0e064f2842d45a3dB6EA2';

const agg = new FakeAggregator();
let proc: BackendProcess;
let swapUrl: string;
let swapFile: string;

before(async () => {
  await agg.start();
  const dataDir = path.join(tempDir(), 'data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  swapFile = path.join(dataDir, 'swap.yaml');
  writeFileSync(swapFile, swapYaml(agg.url));
  proc = await BackendProcess.start({ dataDir });
  swapUrl = (await proc.waitForLine(/^swap builder listening on (http:\/\/127\.0\.0\.1:\d+)$/))[1];
});

after(async () => {
  await proc.stop();
  proc.cleanup();
  await agg.stop();
});

const e = (
  pool: string,
  tokenIn: string,
  tokenOut: string,
  swapAmount: bigint,
  amountOut: bigint,
  exchange: string,
  extra?: unknown,
): Entry => ({
  pool: pool.toLowerCase(),
  tokenIn: tokenIn.toLowerCase(),
  tokenOut: tokenOut.toLowerCase(),
  swapAmount: swapAmount.toString(),
  amountOut: amountOut.toString(),
  exchange,
  poolType: exchange,
  extra,
});

function build(body: Record<string, unknown>) {
  return api(swapUrl, 'POST', '/api/v1/route/build', { body: { chain: 'bsc', sender: SENDER, ...body } });
}

/** Sends the request, answers it with `route`, and checks the response and its calldata. */
async function roundTrip(
  req: { tokenIn: string; tokenOut: string; amountIn: bigint; [k: string]: unknown },
  route: Entry[][],
  over: Record<string, unknown> = {},
  v4Keys: NonNullable<Parameters<typeof checkCalldata>[1]['v4']>['keys'] = {},
) {
  agg.seen.length = 0;
  agg.reply = (_url, res) => json(res, 200, answer(req.tokenIn, req.tokenOut, req.amountIn, route, over));
  const deadline = Math.floor(Date.now() / 1000) + 600;
  const res = await build({ ...req, amountIn: req.amountIn.toString(), deadline });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const r = res.body;
  for (const k of [
    'tokenIn',
    'tokenOut',
    'amountIn',
    'amountOut',
    'minAmountOut',
    'gas',
    'gasPrice',
    'aggregatorAddress',
    'executorAddress',
    'executorData',
    'value',
    'swapType',
  ]) {
    assert.equal(typeof r[k], 'string', `${k} must be a string`);
  }
  for (const k of ['gasUsd', 'amountInUsd', 'amountOutUsd']) assert.equal(typeof r[k], 'number', `${k} must be a number`);
  assert.equal(r.aggregatorAddress, ROUTER);
  assert.equal(r.executorAddress, TOKEN_APPROVE);
  assert.equal(r.routeInfo.source, 'aggregator');
  const recipient = (req.recipient as string | undefined) ?? SENDER;
  checkCalldata(r, {
    adapters: ADAPTERS,
    dynamicFeeBps: { swapb: 30 },
    wrapped: WBNB,
    sender: SENDER,
    recipient,
    deadline,
    slippage: (req.slippageTolerance as number) ?? 50,
    v4: { adapter: V4_ADAPTER, keys: v4Keys },
  });
  assert.equal(agg.seen.length, 1);
  return { r, seen: agg.seen[0] };
}

test('simple: asks only the mapped exchanges, sends X-Client-Id, maps gas and USD', async () => {
  const { r, seen } = await roundTrip({ tokenIn: USDT, tokenOut: USDC, amountIn: 10n ** 21n }, [
    [e(P1, USDT, USDC, 10n ** 21n, 999n * 10n ** 18n, 'pancake')],
  ]);
  assert.equal(seen.url.pathname, '/bsc/api/v1/routes');
  assert.equal(seen.headers['x-client-id'], 'test-client');
  assert.equal(seen.url.searchParams.get('includedSources'), 'pancake,pancake-v3,uniswap-v4,uniswap,uniswapv3');
  assert.equal(seen.url.searchParams.get('tokenIn'), USDT);
  assert.equal(seen.url.searchParams.get('amountIn'), (10n ** 21n).toString());
  assert.equal(r.swapType, 'simple');
  assert.equal(r.amountOut, (999n * 10n ** 18n).toString());
  assert.deepEqual([r.gas, r.gasPrice, r.gasUsd, r.amountInUsd, r.amountOutUsd], ['250000', '1000000000', 0.15, 1000.5, 999.25]);
  assert.deepEqual(r.routeInfo.paths[0].hops[0], {
    dex: 'swapa',
    version: 'v2',
    pool: P1,
    tokenIn: USDT,
    tokenOut: USDC,
    amountIn: (10n ** 21n).toString(),
    amountOut: (999n * 10n ** 18n).toString(),
    fee: 2500,
  });
});

test('batch: native input over V2 + V3, dust given to the largest path, request gasPrice wins', async () => {
  const { r, seen } = await roundTrip(
    { tokenIn: NATIVE, tokenOut: USDT, amountIn: 1000n, includedSources: ['swapa', 'swapav3'], gasPrice: '3000000000' },
    [[e(P1, WBNB, USDT, 600n, 360_000n, 'pancake')], [e(P2, NATIVE, USDT, 399n, 240_000n, 'pancake-v3', { fee: 500 })]],
  );
  assert.equal(seen.url.searchParams.get('includedSources'), 'pancake,pancake-v3,uniswap-v4');
  assert.equal(seen.url.searchParams.get('gasPrice'), '3000000000');
  assert.equal(r.swapType, 'batch');
  assert.equal(r.value, '1000');
  assert.deepEqual(
    r.routeInfo.paths.map((p: any) => p.amountIn),
    ['601', '399'],
  );
  assert.equal(r.routeInfo.paths[1].hops[0].fee, 500);
  assert.equal(r.gasPrice, '3000000000');
  assert.ok(Math.abs(r.gasUsd - 0.45) < 1e-9, `gasUsd rescaled to the request's gas price: ${r.gasUsd}`);
});

test('multihop: V3 then dynamic-fee V2 into native output, paid to another recipient', async () => {
  const { r } = await roundTrip({ tokenIn: USDT, tokenOut: NATIVE, amountIn: 5000n, recipient: OTHER, slippageTolerance: 100 }, [
    [e(P1, USDT, BUSD, 5000n, 4990n, 'uniswapv3', { swapFee: 100 }), e(P2, BUSD, WBNB, 4990n, 8n, 'uniswap')],
  ]);
  assert.equal(r.swapType, 'multihop');
  assert.equal(r.value, '0');
  assert.match(r.executorData, /^0x03b87e5f/);
});

test('parallel_multihop: a two-hop path beside a direct path', async () => {
  const { r } = await roundTrip({ tokenIn: USDC, tokenOut: USDT, amountIn: 10_000n }, [
    [e(P1, USDC, BUSD, 7000n, 6990n, 'pancake-v3', { fee: 100 }), e(P3, BUSD, USDT, 6990n, 6980n, 'uniswap')],
    [e(P2, USDC, USDT, 3000n, 2995n, 'pancake')],
  ]);
  assert.equal(r.swapType, 'parallel_multihop');
  assert.equal(r.amountOut, '9975');
});

const POOL_ID = `0x${'5a'.repeat(32)}`;

test("V4: the aggregator's V4 exchange maps to swapav3 with the PoolId and the adapter convention", async () => {
  const { r } = await roundTrip(
    { tokenIn: NATIVE, tokenOut: USDT, amountIn: 1000n, includedSources: ['swapav3'] },
    [
      [
        e(POOL_ID, NATIVE, USDT, 1000n, 600_000n, 'uniswap-v4', {
          fee: 3000,
          tickSpacing: 60,
          hooks: '0x0000000000000000000000000000000000000000',
        }),
      ],
    ],
    {},
    { [POOL_ID]: { fee: 3000, tickSpacing: 60, nativeIn: true } },
  );
  assert.equal(r.routeInfo.paths[0].hops[0].version, 'v4');
  assert.equal(r.routeInfo.paths[0].hops[0].dex, 'swapav3');
  assert.equal(r.routeInfo.paths[0].hops[0].pool, POOL_ID);
  assert.equal(r.routeInfo.paths[0].hops[0].tokenIn, WBNB);
});

test('V4: a PoolId hop under a V3 exchange id is still encoded as a V4 hop', async () => {
  const { r } = await roundTrip(
    { tokenIn: USDT, tokenOut: USDC, amountIn: 5000n, includedSources: ['swapav3'] },
    [[e(POOL_ID, USDT, USDC, 5000n, 4990n, 'pancake-v3', { fee: 100, tickSpacing: 1 })]],
    {},
    { [POOL_ID]: { fee: 100, tickSpacing: 1 } },
  );
  assert.equal(r.routeInfo.paths[0].hops[0].version, 'v4');
});

test('V4: a hooked V4 hop is unusable: the retry excludes the V4 exchange', async () => {
  const hooked = [
    [
      e(POOL_ID, USDT, USDC, 1000n, 990n, 'uniswap-v4', {
        fee: 3000,
        tickSpacing: 60,
        hooks: '0xc0ffee000000000000000000000000000000c044',
      }),
    ],
  ];
  const clean = [[e(P1, USDT, USDC, 1000n, 980n, 'pancake-v3', { fee: 100 })]];
  agg.seen.length = 0;
  agg.reply = (url, res) =>
    json(res, 200, answer(USDT, USDC, 1000n, url.searchParams.get('excludedSources') === 'uniswap-v4' ? clean : hooked));
  const res = await build({ tokenIn: USDT, tokenOut: USDC, amountIn: '1000', includedSources: ['swapav3'] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(agg.seen.length, 2);
  assert.equal(res.body.routeInfo.paths[0].hops[0].version, 'v3');
});

test('an unsupported exchange is excluded once and the clean answer is used', async () => {
  agg.seen.length = 0;
  agg.reply = (url, res) => {
    const route = url.searchParams.get('excludedSources')
      ? [[e(P1, USDT, USDC, 100n, 99n, 'pancake')]]
      : [[e(P1, USDT, USDC, 50n, 49n, 'pancake')], [e(P2, USDT, USDC, 50n, 50n, 'sushiswap')]];
    json(res, 200, answer(USDT, USDC, 100n, route));
  };
  const res = await build({ tokenIn: USDT, tokenOut: USDC, amountIn: '100' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.amountOut, '99', 'the route is the retried one, not the first one shrunk');
  assert.equal(agg.seen.length, 2);
  assert.equal(agg.seen[1].url.searchParams.get('excludedSources'), 'sushiswap');
  assert.equal(agg.seen[1].url.searchParams.get('includedSources'), agg.seen[0].url.searchParams.get('includedSources'));
});

test('an exchange still unsupported after the retry is 400 no_route, never a shrunk route', async () => {
  agg.seen.length = 0;
  agg.reply = (_url, res) =>
    json(res, 200, answer(USDT, USDC, 100n, [[e(P1, USDT, USDC, 50n, 49n, 'pancake')], [e(P2, USDT, USDC, 50n, 50n, 'sushiswap')]]));
  const res = await build({ tokenIn: USDT, tokenOut: USDC, amountIn: '100' });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 'no_route');
  assert.match(res.body.error.message, /sushiswap/);
  assert.equal(agg.seen.length, 2);
});

const FAILURES: [string, (res: import('node:http').ServerResponse) => void, RegExp][] = [
  ['code != 0', (res) => json(res, 200, { code: 4011, message: 'token not found', requestId: 'x' }), /error code 4011: token not found/],
  ['HTTP 500', (res) => json(res, 500, { code: 500, message: 'internal server error' }), /HTTP 500: internal server error/],
  ['malformed JSON', (res) => json(res, 200, '{"code":0,"data":{'), /malformed JSON/],
  [
    'wrong shape',
    (res) => json(res, 200, { code: 0, data: { routeSummary: { amountIn: '1' } } }),
    /unexpected answer shape \(data\.routeSummary\./,
  ],
  ['hang past the timeout', () => undefined, /no answer within 500 ms/],
];

for (const [name, reply, message] of FAILURES) {
  test(`aggregator failure: ${name} -> 500 upstream_error with a useful message`, async () => {
    agg.reply = (_url, res) => reply(res);
    const started = Date.now();
    const res = await build({ tokenIn: USDT, tokenOut: USDC, amountIn: '100' });
    assert.equal(res.status, 500, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'upstream_error');
    assert.match(res.body.error.message, message);
    assert.match(res.body.error.message, /aggregator http:\/\/127\.0\.0\.1:\d+\/bsc\/api\/v1\/routes/);
    assert.doesNotMatch(res.body.error.message, /test-client|tokenIn=/, 'no client id or query in the message');
    assert.ok(Date.now() - started < 5000, 'the timeout comes from swap.yaml timeout_ms');
  });
}

test('an empty route is 400 no_route', async () => {
  agg.reply = (_url, res) => json(res, 200, answer(USDT, USDC, 100n, []));
  const res = await build({ tokenIn: USDT, tokenOut: USDC, amountIn: '100' });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 'no_route');
});

test('liquidity: onchain without an rpc_url answers 500 config_missing naming it', async () => {
  const res = await build({ chain: 'ethereum', tokenIn: USDT, tokenOut: USDC, amountIn: '100' });
  assert.equal(res.status, 500);
  assert.equal(res.body.error.code, 'config_missing');
  assert.match(res.body.error.message, /chains\.ethereum\.rpc_url is not set/);
});

test('a missing setting is 500 config_missing naming it; edits apply without a restart', async () => {
  try {
    writeFileSync(swapFile, swapYaml(agg.url, { router: true }));
    const res = await build({ tokenIn: USDT, tokenOut: USDC, amountIn: '100' });
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, 'config_missing');
    assert.match(res.body.error.message, /chains\.bsc\.router is not set/);
    writeFileSync(swapFile, swapYaml(agg.url, { adapterOf: 'swapb-v3' }));
    const v3 = await build({ tokenIn: USDT, tokenOut: USDC, amountIn: '100', includedSources: ['swapb-v3'] });
    assert.match(v3.body.error.message, /chains\.bsc\.sources\.swapb-v3\.adapter is not set/);
  } finally {
    writeFileSync(swapFile, swapYaml(agg.url));
  }
});
