import type { PoolRef, PoolState } from './pool-reader.js';

const Q96 = 2 ** 96;

/** Output per unit of input at the pool's mid price (no fee, no slippage); undefined without state. */
export function midRate(pool: PoolRef, tokenIn: string, states: Map<string, PoolState>): number | undefined {
  const s = states.get(pool.address);
  if (!s) return undefined;
  const zeroForOne = tokenIn.toLowerCase() === pool.token0;
  if (s.kind === 'v2') {
    const { reserve0, reserve1 } = s.state;
    if (reserve0 === 0n || reserve1 === 0n) return undefined;
    return zeroForOne ? Number(reserve1) / Number(reserve0) : Number(reserve0) / Number(reserve1);
  }
  const sqrt = Number(s.state.sqrtPriceX96) / Q96;
  const price = sqrt * sqrt; // token1 per token0
  if (!(price > 0) || !Number.isFinite(price)) return undefined;
  return zeroForOne ? price : 1 / price;
}

/**
 * The route's price impact in basis points: its output against what the same amounts would give
 * at the pools' mid prices (fees count as impact, as a trader sees it). Null when a pool has no
 * mid price.
 */
export function priceImpactBps(
  paths: { amountIn: bigint; pools: PoolRef[]; tokens: string[] }[],
  amountOut: bigint,
  states: Map<string, PoolState>,
): number | null {
  let ideal = 0;
  for (const p of paths) {
    let out = Number(p.amountIn);
    for (let i = 0; i < p.pools.length; i++) {
      const rate = midRate(p.pools[i], p.tokens[i], states);
      if (rate === undefined) return null;
      out *= rate;
    }
    ideal += out;
  }
  if (!(ideal > 0)) return null;
  return Math.max(0, Math.round((1 - Number(amountOut) / ideal) * 10_000));
}
