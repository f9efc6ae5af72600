/**
 * Generated pool sets for the route-quality benchmark and the optimizer tests: 2 to 8 candidate
 * paths (one or two hops), V2 and V3 pools mixed, V3 liquidity spread over several tick ranges,
 * from a seeded generator so every run sees the same cases.
 */
import { quoteV2ExactIn } from '../backend/swap/onchain/v2-math.js';
import { getSqrtRatioAtTick } from '../backend/swap/onchain/v3-math.js';
import { quoteV3ExactIn, type V3PoolState } from '../backend/swap/onchain/v3-quote.js';
import type { SplitCandidate } from '../backend/swap/onchain/split-optimizer.js';

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const E18 = 10n ** 18n;

/** One pool as a quote function of the input (token0 → token1 at a price near 1). */
export type PoolQuote = (amountIn: bigint) => bigint;

export function v2Pool(depth: bigint, skew: number, feeBps: number): PoolQuote {
  const r1 = (depth * BigInt(Math.round(skew * 1e6))) / 1_000_000n;
  return (a) => quoteV2ExactIn(a, depth, r1, feeBps);
}

/** A V3 pool with liquidity in nested ranges around the current price (tick spacing 60). */
export function v3Pool(depth: bigint, skew: number, fee: number, random: () => number): PoolQuote {
  return clPool(depth, skew, fee, 60, random, undefined);
}

/**
 * A V4 pool: the same concentrated-liquidity math with any tick spacing, and the V4 fee rule (a
 * protocol fee per direction added on top of the LP fee).
 */
export function v4Pool(depth: bigint, skew: number, lpFee: number, spacing: number, protocolFee: number, random: () => number): PoolQuote {
  const fee = protocolFee === 0 ? lpFee : protocolFee + lpFee - Math.floor((protocolFee * lpFee) / 1_000_000);
  return clPool(depth, skew, fee, spacing, random, [fee, lpFee]);
}

function clPool(
  depth: bigint,
  skew: number,
  fee: number,
  spacing: number,
  random: () => number,
  fees: [number, number] | undefined,
): PoolQuote {
  const tick = Math.round(Math.log(skew) / Math.log(1.0001));
  const base = Math.floor(tick / spacing) * spacing;
  const bitmap = new Map<number, bigint>();
  const liquidityNet = new Map<number, bigint>();
  let active = 0n;
  const ranges = 3 + Math.floor(random() * 4);
  for (let i = 0; i < ranges; i++) {
    const half = spacing * Math.max(2, Math.round(((2 + Math.floor(random() * 200) * (i + 1)) * 60) / spacing));
    const lower = base - half;
    const upper = base + half;
    // Liquidity so that the range holds roughly `depth / ranges` of token0.
    const L = ((depth / BigInt(ranges)) * 20_000n) / BigInt(Math.max(1, Math.round(half / 2)));
    for (const [t, net] of [
      [lower, L],
      [upper, -L],
    ] as [number, bigint][]) {
      liquidityNet.set(t, (liquidityNet.get(t) ?? 0n) + net);
      const c = t / spacing;
      const word = c >> 8;
      const bit = ((c % 256) + 256) % 256;
      bitmap.set(word, (bitmap.get(word) ?? 0n) | (1n << BigInt(bit)));
    }
    active += L;
  }
  // Every word of the tick range is "read", so a large trade can walk out of the ranges.
  const maxWord = Math.ceil(887272 / spacing / 256) + 1;
  for (let w = -maxWord; w <= maxWord; w++) if (!bitmap.has(w)) bitmap.set(w, 0n);
  const state: V3PoolState = {
    sqrtPriceX96: getSqrtRatioAtTick(tick),
    tick,
    liquidity: active,
    fee,
    fees,
    tickSpacing: spacing,
    bitmap,
    liquidityNet,
  };
  return (a) => quoteV3ExactIn(state, a, true).amountOut;
}

export interface PoolSetCase {
  name: string;
  candidates: SplitCandidate[];
  deepest: bigint;
}

/** A set of `paths` disjoint candidate paths, each one or two hops of mixed V2/V3/V4 pools. */
export function poolSet(seed: number, paths: number): PoolSetCase {
  const random = rng(seed);
  const candidates: SplitCandidate[] = [];
  let deepest = 0n;
  for (let p = 0; p < paths; p++) {
    const hops = random() < 0.35 ? 2 : 1;
    const quotes: PoolQuote[] = [];
    for (let h = 0; h < hops; h++) {
      const depth = E18 * BigInt(Math.round(50_000 + random() * 2_000_000));
      if (depth > deepest) deepest = depth;
      const skew = 0.995 + random() * 0.01;
      const kind = random();
      quotes.push(
        kind < 0.35
          ? v2Pool(depth, skew, random() < 0.5 ? 25 : 30)
          : kind < 0.7
            ? v3Pool(depth, skew, [100, 500, 3000][Math.floor(random() * 3)], random)
            : v4Pool(
                depth,
                skew,
                [100, 500, 2000, 3000, 4321][Math.floor(random() * 5)],
                [1, 10, 40, 60, 200][Math.floor(random() * 5)],
                random() < 0.3 ? Math.floor(random() * 1000) : 0,
                random,
              ),
      );
    }
    candidates.push({
      quote: (a) => quotes.reduce((x, q) => q(x), a),
      gasCost: 0n,
      pools: [`p${p}`],
    });
  }
  return { name: `seed ${seed}, ${paths} paths`, candidates, deepest };
}
