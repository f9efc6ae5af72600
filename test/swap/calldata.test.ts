import assert from 'node:assert/strict';
import { test } from 'node:test';
import { id } from 'ethers';
import fc from 'fast-check';
import { ApiError } from '../../backend/http/errors.js';
import { encodeSwap, planProblem, splitWeights, type RouterPlan } from '../../backend/swap/calldata.js';
import { buildResponse } from '../../backend/swap/route-builder.js';
import type { FoundRoute, Hop, Route } from '../../backend/swap/route-model.js';
import type { RouteRequest } from '../../backend/swap/route-request.js';
import type { SourceName } from '../../backend/swap/swap-api.js';
import { ROUTER_INTERFACE } from '../../backend/swap/router-abi.js';
import type { ChainSettings, ResolvedSource } from '../../backend/swap/swap-settings.js';
import { checkCalldata, NATIVE } from './check-calldata.js';
import { decodeSwap, testAddress } from './decode-swap.js';

const A = testAddress(0x1000);
const B = testAddress(0x2000);
const C = testAddress(0x3000);
const WRAPPED = testAddress(0x9000);
const SENDER = testAddress(0x5e0d);
const OTHER = testAddress(0x0be7);
// A pool with every address bit set: a mask slip would bleed into the weight or reverse bits.
const POOL_ALL_ONES = '0xFFfFfFffFFfffFFfFFfFFFFFffFFFffffFfFFFfF';
const POOL2 = testAddress(0x7002);
const POOL3 = testAddress(0x7003);
const ADAPTERS: Record<SourceName, string> = {
  swapa: testAddress(0xad01),
  swapav3: testAddress(0xad02),
  swapb: testAddress(0xad03),
  'swapb-v3': testAddress(0xad04),
};

const SOURCES: ResolvedSource[] = [
  { name: 'swapa', kind: 'v2', adapter: ADAPTERS.swapa, fee_bps: 25 },
  { name: 'swapav3', kind: 'v3', adapter: ADAPTERS.swapav3, fee_tiers: [100, 500, 2500, 10000] },
  { name: 'swapb', kind: 'v2', adapter: ADAPTERS.swapb, fee_bps: 30, dynamic_fee: true },
  { name: 'swapb-v3', kind: 'v3', adapter: ADAPTERS['swapb-v3'], fee_tiers: [100, 500, 3000, 10000] },
];
const SETTINGS: ChainSettings = { chain: 'bsc', router: testAddress(0x4007), token_approve: testAddress(0xa9), wrapped_native: WRAPPED };

function hop(
  source: SourceName,
  pool: string,
  tokenIn: string,
  tokenOut: string,
  amountIn: bigint,
  amountOut: bigint,
  fee: number | null,
): Hop {
  const kind = source.endsWith('v3') ? 'v3' : 'v2';
  return { source, kind, pool, tokenIn, tokenOut, amountIn, amountOut, fee };
}

function route(tokenIn: string, tokenOut: string, paths: Hop[][]): Route {
  const p = paths.map((hops) => ({ amountIn: hops[0].amountIn, amountOut: hops[hops.length - 1].amountOut, hops }));
  return {
    tokenIn,
    tokenOut,
    amountIn: p.reduce((a, x) => a + x.amountIn, 0n),
    amountOut: p.reduce((a, x) => a + x.amountOut, 0n),
    paths: p,
  };
}

const META = {
  source: 'aggregator' as const,
  gasSource: 'model' as const,
  gas: 150_000n,
  gasPrice: 3_000_000_000n,
  gasUsd: 0.27,
  amountInUsd: 10,
  amountOutUsd: 9.9,
};

function build(r: Route, opts: { recipient?: string; slippage?: number } = {}) {
  const req: RouteRequest = {
    chain: 'bsc',
    tokenIn: r.tokenIn,
    tokenOut: r.tokenOut,
    amountIn: r.amountIn,
    sender: SENDER,
    recipient: opts.recipient ?? SENDER,
    slippageTolerance: opts.slippage ?? 50,
    deadline: 1_900_000_000,
  };
  const found: FoundRoute = { route: r, meta: META };
  const resp = buildResponse(req, found, SETTINGS, SOURCES);
  const decoded = checkCalldata(resp, {
    adapters: ADAPTERS,
    dynamicFeeBps: { swapb: 30 },
    wrapped: WRAPPED,
    sender: req.sender,
    recipient: req.recipient,
    deadline: req.deadline,
    slippage: req.slippageTolerance,
  });
  return { resp, decoded };
}

test('selectors match the facts sheet and the canonical signatures', () => {
  assert.equal(ROUTER_INTERFACE.getFunction('smartSwapByOrderId')!.selector, '0xb80c2f09');
  assert.equal(ROUTER_INTERFACE.getFunction('smartSwapTo')!.selector, '0x03b87e5f');
  const tuple =
    '(uint256,(uint256,address,uint256,uint256,uint256),uint256[],(address[],address[],uint256[],bytes[],uint256)[][],(uint256,address,address,address,uint256,uint256,uint256,uint256,bool,bytes)[])';
  assert.equal(id(`smartSwapByOrderId${tuple}`).slice(0, 10), '0xb80c2f09');
});

test('simple: one V2 hop, token0 -> token1, pays the sender', () => {
  const { resp, decoded } = build(route(A, B, [[hop('swapa', POOL_ALL_ONES, A, B, 1000n, 1990n, 2500)]]));
  assert.equal(resp.swapType, 'simple');
  assert.equal(decoded.batches[0][0].pools[0].reverse, false);
  assert.equal(decoded.batches[0][0].pools[0].weight, 10_000);
  assert.equal(decoded.batches[0][0].pools[0].pool, POOL_ALL_ONES);
  assert.equal(resp.minAmountOut, '1980'); // floor(1990 * 9950 / 10000) = 1980.05 -> 1980
  assert.equal(resp.value, '0');
  assert.equal(resp.aggregatorAddress, SETTINGS.router);
  assert.equal(resp.executorAddress, SETTINGS.token_approve);
});

test('batch: native input split over a V2 and a V3 pool, value set, wrapped token spent', () => {
  const r = route(NATIVE, A, [[hop('swapa', POOL2, WRAPPED, A, 600n, 1200n, 2500)], [hop('swapav3', POOL3, WRAPPED, A, 401n, 800n, 500)]]);
  const { resp, decoded } = build(r, { slippage: 0 });
  assert.equal(resp.swapType, 'batch');
  assert.equal(resp.value, '1001');
  assert.equal(decoded.fromToken, NATIVE);
  assert.deepEqual(decoded.batchesAmount, [600n, 401n]);
  // WRAPPED (0x..9000) sorts above A (0x..1000): the input is token1.
  assert.equal(decoded.batches[0][0].pools[0].reverse, true);
  assert.equal(decoded.batches[1][0].pools[0].assetTo, ADAPTERS.swapav3);
  assert.equal(resp.minAmountOut, '2000');
});

test('multihop: V3 then dynamic-fee V2 to native output, paid to another recipient via smartSwapTo', () => {
  const r = route(B, NATIVE, [[hop('swapb-v3', POOL2, B, C, 5000n, 7000n, 3000), hop('swapb', POOL3, C, WRAPPED, 7000n, 3n, 3000)]]);
  const { resp, decoded } = build(r, { recipient: OTHER, slippage: 5000 });
  assert.equal(resp.swapType, 'multihop');
  assert.equal(decoded.fn, 'smartSwapTo');
  assert.equal(decoded.receiver, OTHER);
  assert.equal(decoded.toToken, NATIVE);
  assert.equal(decoded.batches[0][1].fromToken, C);
  assert.equal(resp.minAmountOut, '1');
});

test('parallel_multihop: one two-hop path and one direct path, token1 -> token0', () => {
  const r = route(B, A, [
    [hop('swapav3', POOL2, B, C, 700n, 900n, 100), hop('swapa', POOL3, C, A, 900n, 650n, 2500)],
    [hop('swapb', POOL_ALL_ONES, B, A, 300n, 280n, 3000)],
  ]);
  const { resp, decoded } = build(r);
  assert.equal(resp.swapType, 'parallel_multihop');
  assert.equal(decoded.batches[1][0].pools[0].reverse, true);
  assert.equal(decoded.batches[0][0].pools[0].reverse, false);
  assert.deepEqual(
    resp.routeInfo.paths.map((p: any) => p.hops.length),
    [2, 1],
  );
});

test('a route whose paths do not spend the whole input is refused, not encoded', () => {
  const r = route(A, B, [[hop('swapa', POOL2, A, B, 1000n, 1990n, 2500)]]);
  r.amountIn = 1001n;
  assert.throws(
    () => build(r),
    (e: unknown) => e instanceof ApiError && e.code === 'upstream_error' && /1000/.test(e.message),
  );
});

test('splitWeights sums to exactly 10000 and gives the remainder to the largest share', () => {
  assert.deepEqual(splitWeights([1n, 1n, 1n]), [3334, 3333, 3333]);
  assert.deepEqual(splitWeights([1n, 2n]), [3333, 6667]);
  fc.assert(
    fc.property(fc.array(fc.bigInt({ min: 0n, max: 1n << 200n }), { minLength: 1, maxLength: 8 }), (amounts) => {
      fc.pre(amounts.some((a) => a > 0n));
      const w = splitWeights(amounts);
      assert.equal(
        w.reduce((a, b) => a + b, 0),
        10_000,
      );
      assert.ok(w.every((x) => Number.isInteger(x) && x >= 0 && x <= 10_000));
    }),
  );
});

test('a hop split over several pools encodes one weight per pool, summing to 10000', () => {
  const weights = splitWeights([2n, 1n]);
  const plan: RouterPlan = {
    fromToken: A,
    toToken: B,
    amountIn: 3n,
    minReturn: 1n,
    deadline: 1_900_000_000,
    batchesAmount: [3n],
    batches: [
      [
        {
          fromToken: A,
          pools: [
            { adapter: ADAPTERS.swapa, assetTo: POOL_ALL_ONES, pool: POOL_ALL_ONES, reverse: true, weight: weights[0], extraData: '0x' },
            { adapter: ADAPTERS.swapb, assetTo: POOL2, pool: POOL2, reverse: false, weight: weights[1], extraData: '0x' },
          ],
        },
      ],
    ],
  };
  const d = decodeSwap(encodeSwap(plan, { sender: SENDER, recipient: SENDER }));
  assert.deepEqual(
    d.batches[0][0].pools.map((p) => [p.pool, p.weight, p.reverse]),
    [
      [POOL_ALL_ONES, 6667, true],
      [POOL2, 3333, false],
    ],
  );

  const bad = structuredClone(plan);
  bad.batches[0][0].pools[1].weight -= 1;
  assert.match(planProblem(bad)!, /9999/);
  assert.throws(() => encodeSwap(bad, { sender: SENDER, recipient: SENDER }), /weights sum to 9999/);
  const short = { ...plan, batchesAmount: [2n] };
  assert.throws(() => encodeSwap(short, { sender: SENDER, recipient: SENDER }), /batchesAmount sums to 2, not 3/);
});
