import type { PoolRef, PoolState } from './pool-reader.js';
import { quoteV2ExactIn } from './v2-math.js';
import { MissingTickData, quoteV3ExactIn } from './v3-quote.js';

/** A path through fixed pools: pools[i] swaps tokens[i] into tokens[i + 1]. */
export interface CandidatePath {
  tokens: string[];
  pools: PoolRef[];
}

export interface HopQuote {
  amountOut: bigint;
  ticksCrossed: number;
}

const lower = (a: string) => a.toLowerCase();

/** Token sequences: direct, via one connector, via two connectors (no token twice). */
export function tokenSequences(tokenIn: string, tokenOut: string, connectors: string[]): string[][] {
  const a = lower(tokenIn);
  const b = lower(tokenOut);
  const mids = [...new Set(connectors.map(lower))].filter((c) => c !== a && c !== b);
  const out: string[][] = [[a, b]];
  for (const c of mids) out.push([a, c, b]);
  for (const c1 of mids) for (const c2 of mids) if (c1 !== c2) out.push([a, c1, c2, b]);
  return out;
}

export function pairKey(x: string, y: string): string {
  return BigInt(x) < BigInt(y) ? `${lower(x)}:${lower(y)}` : `${lower(y)}:${lower(x)}`;
}

/** Exact output of one pool for an input of `tokenIn` (throws MissingTickData to ask for more ticks). */
export function quoteHop(pool: PoolRef, state: PoolState | undefined, tokenIn: string, amountIn: bigint): HopQuote {
  if (!state || amountIn <= 0n) return { amountOut: 0n, ticksCrossed: 0 };
  const zeroForOne = lower(tokenIn) === pool.token0;
  if (state.kind === 'v2') {
    const { reserve0, reserve1 } = state.state;
    const out = zeroForOne
      ? quoteV2ExactIn(amountIn, reserve0, reserve1, pool.fee)
      : quoteV2ExactIn(amountIn, reserve1, reserve0, pool.fee);
    return { amountOut: out, ticksCrossed: 0 };
  }
  const q = quoteV3ExactIn(state.state, amountIn, zeroForOne);
  // The adapter hands the pool its whole balance; a pool that cannot take it all (price limit
  // reached) would strand the rest, so such a hop is not usable for this amount.
  if (q.amountUsed !== amountIn) return { amountOut: 0n, ticksCrossed: q.ticksCrossed };
  return { amountOut: q.amountOut, ticksCrossed: q.ticksCrossed };
}

export function quotePath(path: CandidatePath, states: Map<string, PoolState>, amountIn: bigint): HopQuote[] {
  const quotes: HopQuote[] = [];
  let amount = amountIn;
  for (let i = 0; i < path.pools.length; i++) {
    const q = quoteHop(path.pools[i], states.get(path.pools[i].address), path.tokens[i], amount);
    quotes.push(q);
    amount = q.amountOut;
    if (amount === 0n) break;
  }
  return quotes;
}

export function pathOutput(path: CandidatePath, states: Map<string, PoolState>, amountIn: bigint): bigint {
  const quotes = quotePath(path, states, amountIn);
  return quotes.length === path.pools.length ? quotes[quotes.length - 1].amountOut : 0n;
}

/**
 * Candidate paths for the split search: every pool of a direct pair on its own, and for longer
 * sequences one path per first-hop pool, each later hop taking the pool that pays most for the
 * full amount. Deterministic order (sequence, then pool address).
 */
export function buildCandidates(
  sequences: string[][],
  poolsByPair: Map<string, PoolRef[]>,
  states: Map<string, PoolState>,
  amountIn: bigint,
): CandidatePath[] {
  const candidates: CandidatePath[] = [];
  for (const tokens of sequences) {
    const hopPools = tokens.slice(0, -1).map((t, i) => poolsByPair.get(pairKey(t, tokens[i + 1])) ?? []);
    if (hopPools.some((p) => p.length === 0)) continue;
    for (const first of hopPools[0]) {
      const pools = [first];
      let amount = quoteHop(first, states.get(first.address), tokens[0], amountIn).amountOut;
      for (let i = 1; i < hopPools.length && amount > 0n; i++) {
        let best: PoolRef | undefined;
        let bestOut = -1n;
        for (const p of hopPools[i]) {
          const out = quoteHop(p, states.get(p.address), tokens[i], amount).amountOut;
          if (out > bestOut) {
            bestOut = out;
            best = p;
          }
        }
        pools.push(best!);
        amount = bestOut;
      }
      if (amount > 0n && pools.length === hopPools.length) candidates.push({ tokens, pools });
    }
  }
  return candidates;
}

export { MissingTickData };
