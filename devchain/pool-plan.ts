/**
 * What the devchain deploys: tokens with different decimals and USD prices, and the
 * pools on each source. DOGE trades only against WBNB and USDT, MEME only against USDC,
 * so DOGE -> MEME needs three hops through the connectors; WBNB/USDT exists on all four
 * sources (at slightly different prices) so splits pay off.
 */

export type SourceName = 'swapa' | 'swapav3' | 'swapb' | 'swapb-v3';

export interface TokenPlan {
  symbol: string;
  name: string;
  decimals: number;
  usd: number;
}

export const WRAPPED_SYMBOL = 'WBNB';

export const TOKEN_PLAN: TokenPlan[] = [
  { symbol: 'USDT', name: 'Tether USD (devchain)', decimals: 18, usd: 1 },
  { symbol: 'USDC', name: 'USD Coin (devchain)', decimals: 6, usd: 1 },
  { symbol: 'BTCB', name: 'Bitcoin BEP20 (devchain)', decimals: 8, usd: 60_000 },
  { symbol: 'ETH', name: 'Ethereum Token (devchain)', decimals: 18, usd: 3_000 },
  { symbol: 'CAKE', name: 'Cake Token (devchain)', decimals: 18, usd: 2.5 },
  { symbol: 'DOGE', name: 'Dogecoin (devchain)', decimals: 8, usd: 0.15 },
  { symbol: 'MEME', name: 'Meme Coin (devchain)', decimals: 18, usd: 0.02 },
];

export const WRAPPED_USD = 600;
export const CONNECTORS = ['WBNB', 'USDT', 'USDC'];
export const USD_TOKENS = ['USDT', 'USDC'];

export interface V2PoolPlan {
  source: 'swapa' | 'swapb';
  a: string;
  b: string;
  /** USD value of each side. */
  depthUsd: number;
  /** Multiplies token a's price in this pool (1 = fair price). */
  skew?: number;
}

export interface V3PoolPlan {
  source: 'swapav3' | 'swapb-v3';
  a: string;
  b: string;
  fee: number;
  depthUsd: number;
  skew?: number;
}

export const V2_POOLS: V2PoolPlan[] = [
  { source: 'swapa', a: 'WBNB', b: 'USDT', depthUsd: 2_000_000 },
  { source: 'swapa', a: 'WBNB', b: 'USDC', depthUsd: 1_000_000 },
  { source: 'swapa', a: 'USDT', b: 'USDC', depthUsd: 1_000_000 },
  { source: 'swapa', a: 'BTCB', b: 'WBNB', depthUsd: 1_000_000 },
  { source: 'swapa', a: 'CAKE', b: 'WBNB', depthUsd: 500_000 },
  { source: 'swapa', a: 'DOGE', b: 'WBNB', depthUsd: 300_000 },
  { source: 'swapa', a: 'ETH', b: 'USDT', depthUsd: 800_000 },
  { source: 'swapb', a: 'WBNB', b: 'USDT', depthUsd: 1_000_000, skew: 1.002 },
  { source: 'swapb', a: 'USDC', b: 'MEME', depthUsd: 200_000 },
  { source: 'swapb', a: 'CAKE', b: 'USDT', depthUsd: 300_000 },
  { source: 'swapb', a: 'ETH', b: 'WBNB', depthUsd: 500_000 },
  { source: 'swapb', a: 'BTCB', b: 'USDT', depthUsd: 600_000 },
];

export const V3_POOLS: V3PoolPlan[] = [
  { source: 'swapav3', a: 'WBNB', b: 'USDT', fee: 500, depthUsd: 1_000_000, skew: 0.999 },
  { source: 'swapav3', a: 'WBNB', b: 'USDT', fee: 2500, depthUsd: 500_000 },
  { source: 'swapav3', a: 'USDT', b: 'USDC', fee: 100, depthUsd: 2_000_000 },
  { source: 'swapav3', a: 'BTCB', b: 'WBNB', fee: 2500, depthUsd: 500_000 },
  { source: 'swapav3', a: 'CAKE', b: 'WBNB', fee: 2500, depthUsd: 300_000 },
  { source: 'swapav3', a: 'ETH', b: 'WBNB', fee: 500, depthUsd: 600_000 },
  { source: 'swapb-v3', a: 'WBNB', b: 'USDT', fee: 3000, depthUsd: 800_000, skew: 1.001 },
  { source: 'swapb-v3', a: 'WBNB', b: 'USDC', fee: 500, depthUsd: 700_000 },
  { source: 'swapb-v3', a: 'USDT', b: 'USDC', fee: 100, depthUsd: 1_500_000 },
  { source: 'swapb-v3', a: 'ETH', b: 'USDC', fee: 3000, depthUsd: 400_000 },
  { source: 'swapb-v3', a: 'DOGE', b: 'USDT', fee: 10000, depthUsd: 100_000 },
];

/** Fee tiers each V3 factory enables (Uniswap's factory starts with 500/3000/10000). */
export const V3_FEE_TIERS: Record<'swapav3' | 'swapb-v3', { fee: number; tickSpacing: number }[]> = {
  swapav3: [
    { fee: 100, tickSpacing: 1 },
    { fee: 500, tickSpacing: 10 },
    { fee: 2500, tickSpacing: 50 },
    { fee: 10000, tickSpacing: 200 },
  ],
  'swapb-v3': [
    { fee: 100, tickSpacing: 1 },
    { fee: 500, tickSpacing: 10 },
    { fee: 3000, tickSpacing: 60 },
    { fee: 10000, tickSpacing: 200 },
  ],
};

export interface V4PoolPlan {
  /** 'BNB' is the native coin (currency address(0)). */
  a: string;
  b: string;
  /** LP fee in pips, or 'dynamic' (the 0x800000 flag; its LP fee is set after initialize). */
  fee: number | 'dynamic';
  tickSpacing: number;
  depthUsd: number;
  skew?: number;
  /** Protocol fee in pips per direction (zeroForOne, oneForZero), at most 1000 each. */
  protocolFee?: [number, number];
  /** A FeeTakingHook (afterSwap + afterSwapReturnsDelta) at a flagged address. */
  feeTakingHook?: boolean;
  /** Why the pool is there (for readers). */
  note?: string;
}

/**
 * V4 pools in the one PoolManager (swapav3). The hooked and the dynamic-fee pool price WBNB/USDT
 * better than any other pool, so a router that used them would show it.
 */
export const V4_POOLS: V4PoolPlan[] = [
  { a: 'BNB', b: 'USDT', fee: 3000, tickSpacing: 60, depthUsd: 1_000_000, note: 'native pool next to the WBNB/USDT pools' },
  { a: 'BNB', b: 'DOGE', fee: 2500, tickSpacing: 50, depthUsd: 200_000, note: 'native pool: the only swapav3 pool for BNB <-> DOGE' },
  { a: 'ETH', b: 'WBNB', fee: 500, tickSpacing: 10, depthUsd: 600_000, note: 'same pair as the swapav3 V3 0.05 % pool: splits' },
  { a: 'USDC', b: 'CAKE', fee: 2000, tickSpacing: 40, depthUsd: 300_000, note: 'V4-only pair: MEME -> USDC -> CAKE multihops' },
  {
    a: 'BTCB',
    b: 'ETH',
    fee: 3000,
    tickSpacing: 60,
    depthUsd: 500_000,
    protocolFee: [1000, 500],
    note: 'protocol fee on top of the LP fee',
  },
  {
    a: 'WBNB',
    b: 'USDT',
    fee: 100,
    tickSpacing: 1,
    depthUsd: 3_000_000,
    skew: 1.003,
    feeTakingHook: true,
    note: 'hook takes 1.23 %: never used',
  },
  { a: 'WBNB', b: 'USDT', fee: 'dynamic', tickSpacing: 10, depthUsd: 3_000_000, skew: 1.003, note: 'dynamic fee: never used' },
];

/** Flagged hook address: low 14 bits = afterSwap (1 << 6) | afterSwapReturnsDelta (1 << 2). */
export const FEE_TAKING_HOOK_ADDRESS = '0xc0ffee000000000000000000000000000000c044';
/** The dynamic-fee pool's hook: no permission bits (no callbacks), only allowed to set the fee. */
export const DYNAMIC_FEE_HOOK_ADDRESS = '0xd1fee0000000000000000000000000000000c000';
export const DYNAMIC_LP_FEE = 100;
