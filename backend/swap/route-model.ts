import { isNative } from './route-request.js';
import type { GasSource, PoolKind, RouteInfo, SourceName, SwapType } from './swap-api.js';

/**
 * The route model: plain data, produced by a liquidity source and consumed by the calldata encoder
 * and the response. A route is a set of parallel paths; a path is a sequence of hops; a hop is ONE
 * pool of one source. Hop tokens are ERC-20 addresses (the wrapped token stands in for native).
 */
/** A V4 hop's pool key as the V4 adapter reads it from moreInfo (address(0) = native). */
export interface V4HopKey {
  /** Currencies as the pool holds them: the zero address for native, else the token. */
  currencyIn: string;
  currencyOut: string;
  /** The key's LP fee in pips and its tick spacing. */
  fee: number;
  tickSpacing: number;
}

export interface Hop {
  source: SourceName;
  kind: PoolKind;
  pool: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
  /** Pool fee in hundredths of a basis point (V3 tier units: 2500 = 0.25 %); null when unknown. */
  fee: number | null;
  /** V4 only: `pool` is the PoolId and this is what the adapter needs to rebuild the key. */
  v4?: V4HopKey;
}

export interface RoutePath {
  amountIn: bigint;
  amountOut: bigint;
  hops: Hop[];
}

export interface Route {
  /** Request tokens: may be the native placeholder. */
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
  paths: RoutePath[];
}

/** What a source knows besides the route: gas, prices, where it came from. */
export interface RouteMeta {
  source: 'onchain' | 'aggregator';
  blockNumber?: number;
  gas: bigint;
  /** Sources answer 'model'; the builder replaces gas with a simulation when it can. */
  gasSource: GasSource;
  /**
   * Gas a simulation at the latest block cannot see but the transaction will pay (price
   * accumulators of pools that traded in that block); added to a simulated figure.
   */
  simulationHeadroom?: bigint;
  gasPrice: bigint;
  gasUsd: number | null;
  amountInUsd: number | null;
  amountOutUsd: number | null;
  /** Output against the pools' mid prices, in basis points (null: not known for this source). */
  priceImpactBps?: number | null;
}

export interface FoundRoute {
  route: Route;
  meta: RouteMeta;
}

/** DESIGN 5: the swap type follows from the route's shape. */
export function swapTypeOf(route: Route): SwapType {
  const multiHop = route.paths.some((p) => p.hops.length > 1);
  if (route.paths.length === 1) return multiHop ? 'multihop' : 'simple';
  return multiHop ? 'parallel_multihop' : 'batch';
}

export function minAmountOut(amountOut: bigint, slippageBps: number): bigint {
  return (amountOut * BigInt(10_000 - slippageBps)) / 10_000n;
}

/** Native coin sent with the call: the whole input for native input, else nothing. */
export function txValue(route: Route): bigint {
  return isNative(route.tokenIn) ? route.amountIn : 0n;
}

/** True when the hop's input is the pool's token1 (addresses sort as numbers). */
export function isReverse(hop: Pick<Hop, 'tokenIn' | 'tokenOut'>): boolean {
  return BigInt(hop.tokenIn) > BigInt(hop.tokenOut);
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Checks the invariants the encoder relies on; returns the first broken one, or undefined.
 * `wrapped` is the chain's wrapped native token, which hops use in place of the placeholder.
 */
export function routeProblem(route: Route, wrapped: string): string | undefined {
  const first = isNative(route.tokenIn) ? wrapped : route.tokenIn;
  const last = isNative(route.tokenOut) ? wrapped : route.tokenOut;
  if (route.paths.length === 0) return 'the route has no paths';
  let inSum = 0n;
  let outSum = 0n;
  for (const [i, path] of route.paths.entries()) {
    if (path.hops.length === 0) return `path ${i} has no hops`;
    if (path.amountIn <= 0n) return `path ${i} spends nothing`;
    if (!same(path.hops[0].tokenIn, first)) return `path ${i} does not start at the input token`;
    if (!same(path.hops[path.hops.length - 1].tokenOut, last)) return `path ${i} does not end at the output token`;
    for (let j = 1; j < path.hops.length; j++) {
      if (!same(path.hops[j - 1].tokenOut, path.hops[j].tokenIn)) return `path ${i} hop ${j} does not continue from hop ${j - 1}`;
    }
    if (path.hops.some((h) => same(h.tokenIn, h.tokenOut))) return `path ${i} has a hop from a token to itself`;
    inSum += path.amountIn;
    outSum += path.amountOut;
  }
  if (inSum !== route.amountIn) return `the paths spend ${inSum}, not the input amount ${route.amountIn}`;
  if (outSum !== route.amountOut) return `the paths return ${outSum}, not the route's output ${route.amountOut}`;
  return undefined;
}

/** DESIGN 5 `routeInfo`, amounts as decimal strings. */
export function routeInfo(route: Route, meta: RouteMeta): RouteInfo {
  return {
    source: meta.source,
    ...(meta.blockNumber !== undefined ? { blockNumber: meta.blockNumber } : {}),
    gasSource: meta.gasSource,
    paths: route.paths.map((p) => ({
      amountIn: p.amountIn.toString(),
      amountOut: p.amountOut.toString(),
      hops: p.hops.map((h) => ({
        dex: h.source,
        version: h.kind,
        pool: h.pool,
        tokenIn: h.tokenIn,
        tokenOut: h.tokenOut,
        amountIn: h.amountIn.toString(),
        amountOut: h.amountOut.toString(),
        fee: h.fee,
      })),
    })),
  };
}
