import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getAddress } from 'ethers';
import { buildResponse } from '../../backend/swap/route-builder.js';
import type { FoundRoute, Hop, Route } from '../../backend/swap/route-model.js';
import type { RouteRequest } from '../../backend/swap/route-request.js';
import type { ChainSettings, ResolvedSource } from '../../backend/swap/swap-settings.js';
import { checkCalldata, NATIVE } from './check-calldata.js';
import { testAddress } from './decode-swap.js';

const ZERO = '0x0000000000000000000000000000000000000000';
const A = testAddress(0x1000);
const B = testAddress(0x2000);
const WRAPPED = testAddress(0x9000);
const SENDER = testAddress(0x5e0d);
const V4_ADAPTER = testAddress(0xad44);
const ADAPTERS = { swapa: testAddress(0xad01), swapav3: testAddress(0xad02), swapb: testAddress(0xad03), 'swapb-v3': testAddress(0xad04) };
const SOURCES: ResolvedSource[] = [
  { name: 'swapa', kind: 'v2', adapter: ADAPTERS.swapa, fee_bps: 25 },
  {
    name: 'swapav3',
    kind: 'v3',
    adapter: ADAPTERS.swapav3,
    fee_tiers: [500],
    v4: { pool_manager: testAddress(0x4444), adapter: V4_ADAPTER },
  },
];
const SETTINGS: ChainSettings = { chain: 'bsc', router: testAddress(0x4007), token_approve: testAddress(0xa9), wrapped_native: WRAPPED };
const META = {
  source: 'onchain' as const,
  gasSource: 'model' as const,
  gas: 300_000n,
  gasPrice: 1n,
  gasUsd: null,
  amountInUsd: null,
  amountOutUsd: null,
};
const ID1 = `0x${'11'.repeat(32)}`;
const ID2 = `0x${'22'.repeat(32)}`;

function v4Hop(
  pool: string,
  tokenIn: string,
  tokenOut: string,
  amountIn: bigint,
  amountOut: bigint,
  key: { native?: 'in' | 'out'; fee: number; tickSpacing: number },
): Hop {
  return {
    source: 'swapav3',
    kind: 'v4',
    pool,
    tokenIn,
    tokenOut,
    amountIn,
    amountOut,
    fee: key.fee,
    v4: {
      currencyIn: key.native === 'in' ? ZERO : tokenIn,
      currencyOut: key.native === 'out' ? ZERO : tokenOut,
      fee: key.fee,
      tickSpacing: key.tickSpacing,
    },
  };
}

const v2Hop = (pool: string, tokenIn: string, tokenOut: string, amountIn: bigint, amountOut: bigint): Hop => ({
  source: 'swapa',
  kind: 'v2',
  pool,
  tokenIn,
  tokenOut,
  amountIn,
  amountOut,
  fee: 2500,
});
const v3Hop = (pool: string, tokenIn: string, tokenOut: string, amountIn: bigint, amountOut: bigint): Hop => ({
  source: 'swapav3',
  kind: 'v3',
  pool,
  tokenIn,
  tokenOut,
  amountIn,
  amountOut,
  fee: 500,
});

function build(tokenIn: string, tokenOut: string, paths: Hop[][]) {
  const p = paths.map((hops) => ({ amountIn: hops[0].amountIn, amountOut: hops[hops.length - 1].amountOut, hops }));
  const route: Route = {
    tokenIn,
    tokenOut,
    amountIn: p.reduce((a, x) => a + x.amountIn, 0n),
    amountOut: p.reduce((a, x) => a + x.amountOut, 0n),
    paths: p,
  };
  const req: RouteRequest = {
    chain: 'bsc',
    tokenIn,
    tokenOut,
    amountIn: route.amountIn,
    sender: SENDER,
    recipient: SENDER,
    slippageTolerance: 50,
    deadline: 1_900_000_000,
  };
  const found: FoundRoute = { route, meta: META };
  return buildResponse(req, found, SETTINGS, SOURCES);
}

const expect = (keys: NonNullable<Parameters<typeof checkCalldata>[1]['v4']>['keys']) => ({
  adapters: ADAPTERS,
  wrapped: WRAPPED,
  sender: SENDER,
  recipient: SENDER,
  deadline: 1_900_000_000,
  slippage: 50,
  v4: { adapter: V4_ADAPTER, keys },
});

describe('V4 hops in router calldata (the V4 adapter convention)', () => {
  it('a simple V4 swap: adapter as assetTo, pool bits 0, moreInfo (tokenIn, tokenOut, fee, tickSpacing)', () => {
    const res = build(A, B, [[v4Hop(ID1, A, B, 1000n, 990n, { fee: 3000, tickSpacing: 60 })]]);
    assert.equal(res.swapType, 'simple');
    assert.equal(res.routeInfo.paths[0].hops[0].version, 'v4');
    assert.equal(res.routeInfo.paths[0].hops[0].pool, ID1, 'pool is the PoolId');
    checkCalldata(res, expect({ [ID1]: { fee: 3000, tickSpacing: 60 } }));
  });

  it('native in through a native V4 pool: value set, path token wrapped, moreInfo tokenIn address(0)', () => {
    const res = build(NATIVE, B, [[v4Hop(ID1, WRAPPED, B, 5000n, 4900n, { native: 'in', fee: 500, tickSpacing: 10 })]]);
    assert.equal(res.value, '5000');
    checkCalldata(res, expect({ [ID1]: { fee: 500, tickSpacing: 10, nativeIn: true } }));
  });

  it('a multihop mixing V2, V3 and V4 ending in native out of a native V4 pool', () => {
    const res = build(A, NATIVE, [
      [
        v2Hop(testAddress(0x7001), A, B, 1000n, 900n),
        v3Hop(testAddress(0x7002), B, A, 900n, 800n),
        v4Hop(ID2, A, WRAPPED, 800n, 700n, { native: 'out', fee: 2500, tickSpacing: 50 }),
      ],
    ]);
    assert.equal(res.swapType, 'multihop');
    const d = checkCalldata(res, expect({ [ID2]: { fee: 2500, tickSpacing: 50, nativeOut: true } }));
    // The V4 hop's input goes to the V4 adapter: the V3 hop before it pays there directly.
    assert.equal(d.batches[0][2].pools[0].assetTo, getAddress(V4_ADAPTER));
  });

  it('splits across V3 and V4 pools and parallel multihops through V4', () => {
    const batch = build(A, B, [
      [v3Hop(testAddress(0x7003), A, B, 600n, 590n)],
      [v4Hop(ID1, A, B, 400n, 395n, { fee: 100, tickSpacing: 1 })],
    ]);
    assert.equal(batch.swapType, 'batch');
    checkCalldata(batch, expect({ [ID1]: { fee: 100, tickSpacing: 1 } }));
    const parallel = build(A, B, [
      [v4Hop(ID1, A, B, 600n, 590n, { fee: 100, tickSpacing: 1 })],
      [v2Hop(testAddress(0x7004), A, WRAPPED, 400n, 380n), v4Hop(ID2, WRAPPED, B, 380n, 370n, { fee: 3000, tickSpacing: 60 })],
    ]);
    assert.equal(parallel.swapType, 'parallel_multihop');
    checkCalldata(parallel, expect({ [ID1]: { fee: 100, tickSpacing: 1 }, [ID2]: { fee: 3000, tickSpacing: 60 } }));
  });

  it('a V4 hop through a source without a v4 adapter cannot be encoded', () => {
    const noV4: ResolvedSource[] = [{ name: 'swapav3', kind: 'v3', adapter: ADAPTERS.swapav3 }];
    const route: Route = {
      tokenIn: A,
      tokenOut: B,
      amountIn: 10n,
      amountOut: 9n,
      paths: [{ amountIn: 10n, amountOut: 9n, hops: [v4Hop(ID1, A, B, 10n, 9n, { fee: 1, tickSpacing: 1 })] }],
    };
    const req: RouteRequest = {
      chain: 'bsc',
      tokenIn: A,
      tokenOut: B,
      amountIn: 10n,
      sender: SENDER,
      recipient: SENDER,
      slippageTolerance: 0,
      deadline: 1_900_000_000,
    };
    assert.throws(() => buildResponse(req, { route, meta: META }, SETTINGS, noV4), /v4 adapter/);
  });
});
