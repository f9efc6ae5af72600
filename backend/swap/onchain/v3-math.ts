/**
 * Concentrated-liquidity swap math in exact integer arithmetic, ported from the published
 * Uniswap V3 formulas (TickMath, SqrtPriceMath, SwapMath, TickBitmap), including uint256
 * overflow branches, so that a quote equals what the pool pays to the last wei.
 */
export const MIN_TICK = -887272;
export const MAX_TICK = 887272;
export const MIN_SQRT_RATIO = 4295128739n;
export const MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342n;
export const Q96 = 1n << 96n;
const MAX_UINT256 = (1n << 256n) - 1n;
const MAX_UINT160 = (1n << 160n) - 1n;

export function mulDiv(a: bigint, b: bigint, denominator: bigint): bigint {
  return (a * b) / denominator;
}

export function mulDivRoundingUp(a: bigint, b: bigint, denominator: bigint): bigint {
  const product = a * b;
  const q = product / denominator;
  return product % denominator === 0n ? q : q + 1n;
}

function divRoundingUp(a: bigint, b: bigint): bigint {
  return a / b + (a % b === 0n ? 0n : 1n);
}

const TICK_FACTORS: [number, bigint][] = [
  [0x2, 0xfff97272373d413259a46990580e213an],
  [0x4, 0xfff2e50f5f656932ef12357cf3c7fdccn],
  [0x8, 0xffe5caca7e10e4e61c3624eaa0941cd0n],
  [0x10, 0xffcb9843d60f6159c9db58835c926644n],
  [0x20, 0xff973b41fa98c081472e6896dfb254c0n],
  [0x40, 0xff2ea16466c96a3843ec78b326b52861n],
  [0x80, 0xfe5dee046a99a2a811c461f1969c3053n],
  [0x100, 0xfcbe86c7900a88aedcffc83b479aa3a4n],
  [0x200, 0xf987a7253ac413176f2b074cf7815e54n],
  [0x400, 0xf3392b0822b70005940c7a398e4b70f3n],
  [0x800, 0xe7159475a2c29b7443b29c7fa6e889d9n],
  [0x1000, 0xd097f3bdfd2022b8845ad8f792aa5825n],
  [0x2000, 0xa9f746462d870fdf8a65dc1f90e061e5n],
  [0x4000, 0x70d869a156d2a1b890bb3df62baf32f7n],
  [0x8000, 0x31be135f97d08fd981231505542fcfa6n],
  [0x10000, 0x9aa508b5b7a84e1c677de54f3e99bc9n],
  [0x20000, 0x5d6af8dedb81196699c329225ee604n],
  [0x40000, 0x2216e584f5fa1ea926041bedfe98n],
  [0x80000, 0x48a170391f7dc42444e8fa2n],
];

const sqrtRatioCache = new Map<number, bigint>();

/** sqrt(1.0001^tick) * 2^96, rounded up exactly as TickMath does. */
export function getSqrtRatioAtTick(tick: number): bigint {
  const cached = sqrtRatioCache.get(tick);
  if (cached !== undefined) return cached;
  const absTick = Math.abs(tick);
  if (absTick > MAX_TICK) throw new RangeError(`tick ${tick} out of range`);
  let ratio = absTick & 0x1 ? 0xfffcb933bd6fad37aa2d162d1a594001n : 0x100000000000000000000000000000000n;
  for (const [bit, factor] of TICK_FACTORS) if (absTick & bit) ratio = (ratio * factor) >> 128n;
  if (tick > 0) ratio = MAX_UINT256 / ratio;
  const result = (ratio >> 32n) + (ratio % (1n << 32n) === 0n ? 0n : 1n);
  if (sqrtRatioCache.size > 100_000) sqrtRatioCache.clear();
  sqrtRatioCache.set(tick, result);
  return result;
}

export function getAmount0Delta(a: bigint, b: bigint, liquidity: bigint, roundUp: boolean): bigint {
  if (a > b) [a, b] = [b, a];
  const numerator1 = liquidity << 96n;
  const numerator2 = b - a;
  return roundUp ? divRoundingUp(mulDivRoundingUp(numerator1, numerator2, b), a) : mulDiv(numerator1, numerator2, b) / a;
}

export function getAmount1Delta(a: bigint, b: bigint, liquidity: bigint, roundUp: boolean): bigint {
  if (a > b) [a, b] = [b, a];
  return roundUp ? mulDivRoundingUp(liquidity, b - a, Q96) : mulDiv(liquidity, b - a, Q96);
}

function nextSqrtPriceFromAmount0RoundingUp(sqrtP: bigint, liquidity: bigint, amount: bigint): bigint {
  if (amount === 0n) return sqrtP;
  const numerator1 = liquidity << 96n;
  const product = amount * sqrtP;
  // Solidity takes the precise branch only when neither the product nor the sum overflows uint256.
  if (product <= MAX_UINT256 && numerator1 + product <= MAX_UINT256) {
    return mulDivRoundingUp(numerator1, sqrtP, numerator1 + product);
  }
  return divRoundingUp(numerator1, numerator1 / sqrtP + amount);
}

function nextSqrtPriceFromAmount1RoundingDown(sqrtP: bigint, liquidity: bigint, amount: bigint): bigint {
  const quotient = amount <= MAX_UINT160 ? (amount << 96n) / liquidity : mulDiv(amount, Q96, liquidity);
  return sqrtP + quotient;
}

export interface SwapStep {
  sqrtNext: bigint;
  amountIn: bigint;
  amountOut: bigint;
  feeAmount: bigint;
}

/** One exact-input step towards `target` (SwapMath.computeSwapStep, exactIn branch). */
export function computeSwapStep(current: bigint, target: bigint, liquidity: bigint, amountRemaining: bigint, feePips: number): SwapStep {
  const zeroForOne = current >= target;
  const fee = BigInt(feePips);
  const remainingLessFee = mulDiv(amountRemaining, 1_000_000n - fee, 1_000_000n);
  let amountIn = zeroForOne ? getAmount0Delta(target, current, liquidity, true) : getAmount1Delta(current, target, liquidity, true);
  let sqrtNext: bigint;
  if (remainingLessFee >= amountIn) sqrtNext = target;
  else {
    sqrtNext = zeroForOne
      ? nextSqrtPriceFromAmount0RoundingUp(current, liquidity, remainingLessFee)
      : nextSqrtPriceFromAmount1RoundingDown(current, liquidity, remainingLessFee);
  }
  const max = target === sqrtNext;
  let amountOut: bigint;
  if (zeroForOne) {
    if (!max) amountIn = getAmount0Delta(sqrtNext, current, liquidity, true);
    amountOut = getAmount1Delta(sqrtNext, current, liquidity, false);
  } else {
    if (!max) amountIn = getAmount1Delta(current, sqrtNext, liquidity, true);
    amountOut = getAmount0Delta(current, sqrtNext, liquidity, false);
  }
  const feeAmount = !max ? amountRemaining - amountIn : mulDivRoundingUp(amountIn, fee, 1_000_000n - fee);
  return { sqrtNext, amountIn, amountOut, feeAmount };
}

export function mostSignificantBit(x: bigint): number {
  return x.toString(2).length - 1;
}

export function leastSignificantBit(x: bigint): number {
  return mostSignificantBit(x & -x);
}

/** Word position of a compressed tick in the bitmap (int16 word, uint8 bit). */
export function bitmapPosition(compressed: number): { word: number; bit: number } {
  return { word: compressed >> 8, bit: ((compressed % 256) + 256) % 256 };
}

export function compress(tick: number, tickSpacing: number): number {
  return Math.floor(tick / tickSpacing);
}

/** TickBitmap.nextInitializedTickWithinOneWord over a word reader. */
export function nextInitializedTickWithinOneWord(
  word: (pos: number) => bigint,
  tick: number,
  tickSpacing: number,
  lte: boolean,
): { next: number; initialized: boolean } {
  const compressed = compress(tick, tickSpacing);
  if (lte) {
    const { word: pos, bit } = bitmapPosition(compressed);
    const mask = (1n << BigInt(bit)) - 1n + (1n << BigInt(bit));
    const masked = word(pos) & mask;
    const initialized = masked !== 0n;
    const next = initialized ? (compressed - (bit - mostSignificantBit(masked))) * tickSpacing : (compressed - bit) * tickSpacing;
    return { next, initialized };
  }
  const { word: pos, bit } = bitmapPosition(compressed + 1);
  const mask = MAX_UINT256 ^ ((1n << BigInt(bit)) - 1n);
  const masked = word(pos) & mask;
  const initialized = masked !== 0n;
  const next = initialized
    ? (compressed + 1 + (leastSignificantBit(masked) - bit)) * tickSpacing
    : (compressed + 1 + (255 - bit)) * tickSpacing;
  return { next, initialized };
}
