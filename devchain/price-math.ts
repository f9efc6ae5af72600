/** Integer helpers for setting pools to a chosen USD price. Prices are in micro-USD. */

export const MIN_TICK = -887272;
export const MAX_TICK = 887272;
const MIN_SQRT_RATIO = 4295128739n;
const MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342n;

export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new Error('isqrt of a negative number');
  if (n < 2n) return n;
  // One Newton step from any positive guess lands at or above floor(sqrt(n)); from there
  // the integer iteration decreases monotonically to it.
  const approx = Math.sqrt(Number(n));
  const guess = Number.isFinite(approx) ? BigInt(Math.floor(approx)) || 1n : 1n << BigInt(n.toString(2).length >> 1);
  let x = (guess + n / guess) >> 1n;
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

export function microUsd(price: number): bigint {
  return BigInt(Math.round(price * 1e6));
}

/** Raw units of a token worth `usd` dollars. */
export function rawAmountForUsd(usd: number, priceMicroUsd: bigint, decimals: number): bigint {
  return (BigInt(Math.round(usd)) * 1_000_000n * 10n ** BigInt(decimals)) / priceMicroUsd;
}

export interface PricedToken {
  decimals: number;
  priceMicroUsd: bigint;
}

/** sqrt(token1 raw per token0 raw) in Q64.96, for token0 < token1 by address. */
export function sqrtPriceX96(token0: PricedToken, token1: PricedToken): bigint {
  const num = token0.priceMicroUsd * 10n ** BigInt(token1.decimals);
  const den = token1.priceMicroUsd * 10n ** BigInt(token0.decimals);
  const sqrt = isqrt((num << 192n) / den);
  if (sqrt <= MIN_SQRT_RATIO || sqrt >= MAX_SQRT_RATIO) throw new Error('price outside the V3 range');
  return sqrt;
}

/** Approximate tick of a sqrt price (float); used only to place ranges around it. */
export function approxTick(sqrtX96: bigint): number {
  const ratio = Number(sqrtX96) / 2 ** 96;
  return Math.floor(Math.log(ratio * ratio) / Math.log(1.0001));
}

export function alignDown(tick: number, spacing: number): number {
  return Math.floor(tick / spacing) * spacing;
}

export function alignUp(tick: number, spacing: number): number {
  return Math.ceil(tick / spacing) * spacing;
}

export interface TickRange {
  lower: number;
  upper: number;
  liquidity: bigint;
}

/**
 * Liquidity positions around the current tick: nested ranges of different widths plus
 * one-sided ranges just above and below the price, so that even modest trades cross
 * initialized ticks. `base` is the liquidity of an equivalent full-range V2 pool.
 */
export function positionsAround(tick: number, spacing: number, base: bigint): TickRange[] {
  const minUsable = alignUp(MIN_TICK, spacing);
  const maxUsable = alignDown(MAX_TICK, spacing);
  const clamp = (r: TickRange): TickRange => ({
    lower: Math.max(r.lower, minUsable),
    upper: Math.min(r.upper, maxUsable),
    liquidity: r.liquidity,
  });
  const around = (ticks: number, liquidity: bigint): TickRange =>
    clamp({ lower: alignDown(tick - ticks, spacing), upper: alignUp(tick + ticks, spacing), liquidity });
  const aboveLower = alignUp(tick + 20, spacing);
  const aboveUpper = Math.max(alignUp(tick + 300, spacing), aboveLower + spacing);
  const belowUpper = alignDown(tick - 20, spacing);
  const belowLower = Math.min(alignDown(tick - 300, spacing), belowUpper - spacing);
  return [
    { lower: minUsable, upper: maxUsable, liquidity: (base * 3n) / 10n },
    around(100, base * 3n),
    around(500, (base * 3n) / 2n),
    around(1800, base / 2n),
    clamp({ lower: aboveLower, upper: aboveUpper, liquidity: base }),
    clamp({ lower: belowLower, upper: belowUpper, liquidity: base }),
  ];
}
