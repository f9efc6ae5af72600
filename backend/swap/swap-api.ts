// The swap route builder's HTTP contract (spec 2.3, DESIGN 5) as types, for clients: the renderer's
// swap page imports these type-only.

/** The four DEX sources of spec 2.2. */
export const SOURCE_NAMES = ['swapa', 'swapav3', 'swapb', 'swapb-v3'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

export type PoolKind = 'v2' | 'v3' | 'v4';

/** How `gas` was found: the exact calldata simulated on the node, or the per-hop model. */
export type GasSource = 'simulation' | 'model';

export type SwapType = 'simple' | 'batch' | 'multihop' | 'parallel_multihop';

export interface RouteInfoHop {
  /** The source, or `wrap` for native ↔ wrapped native. */
  dex: SourceName | 'wrap';
  version: PoolKind | 'wrap';
  /** Pool address; for V4 the PoolId (32 bytes); for a wrap the wrapped-native token. */
  pool: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: string;
  amountOut: string;
  fee: number | null;
}

export interface RouteInfo {
  source: 'onchain' | 'aggregator';
  blockNumber?: number;
  gasSource: GasSource;
  paths: { amountIn: string; amountOut: string; hops: RouteInfoHop[] }[];
}

/** Spec 2.3: amounts as decimal strings, USD values as numbers or null. */
export interface RouteResponse {
  tokenIn: string;
  tokenOut: string;
  amountIn: string;
  amountOut: string;
  minAmountOut: string;
  gas: string;
  gasPrice: string;
  gasUsd: number | null;
  amountInUsd: number | null;
  amountOutUsd: number | null;
  /** The route's output against the pools' mid prices, in basis points; null when unknown. */
  priceImpactBps: number | null;
  aggregatorAddress: string;
  executorAddress: string;
  executorData: string;
  value: string;
  swapType: SwapType;
  routeInfo: RouteInfo;
}
