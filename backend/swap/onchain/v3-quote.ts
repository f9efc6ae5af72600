import {
  computeSwapStep,
  getSqrtRatioAtTick,
  MAX_SQRT_RATIO,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
  nextInitializedTickWithinOneWord,
} from './v3-math.js';

/** What a V3 quote needs of a pool: slot0, liquidity, spacing and the bitmap words read so far. */
export interface V3PoolState {
  sqrtPriceX96: bigint;
  tick: number;
  liquidity: bigint;
  fee: number;
  tickSpacing: number;
  /** Bitmap words that were read (word position → word). */
  bitmap: Map<number, bigint>;
  /** liquidityNet of every initialized tick inside the read words. */
  liquidityNet: Map<number, bigint>;
}

/** Thrown when the trade walks into a bitmap word that was not read: the caller reads more. */
export class MissingTickData extends Error {
  constructor(readonly word: number) {
    super(`bitmap word ${word} not loaded`);
  }
}

/**
 * Exact-input swap simulation, step for step as the pool executes it (price limit 0 means the
 * extreme bound, as the adapter passes). Returns the output amount and the input actually used.
 */
export function quoteV3ExactIn(pool: V3PoolState, amountIn: bigint, zeroForOne: boolean): { amountOut: bigint; amountUsed: bigint; ticksCrossed: number } {
  if (amountIn <= 0n) return { amountOut: 0n, amountUsed: 0n, ticksCrossed: 0 };
  let ticksCrossed = 0;
  const limit = zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n;
  let remaining = amountIn;
  let out = 0n;
  let sqrtPrice = pool.sqrtPriceX96;
  let tick = pool.tick;
  let liquidity = pool.liquidity;
  const word = (pos: number) => {
    const w = pool.bitmap.get(pos);
    if (w === undefined) throw new MissingTickData(pos);
    return w;
  };
  while (remaining !== 0n && sqrtPrice !== limit) {
    const start = sqrtPrice;
    let { next, initialized } = nextInitializedTickWithinOneWord(word, tick, pool.tickSpacing, zeroForOne);
    if (next < MIN_TICK) next = MIN_TICK;
    else if (next > MAX_TICK) next = MAX_TICK;
    const sqrtNext = getSqrtRatioAtTick(next);
    const target = (zeroForOne ? sqrtNext < limit : sqrtNext > limit) ? limit : sqrtNext;
    const step = computeSwapStep(sqrtPrice, target, liquidity, remaining, pool.fee);
    sqrtPrice = step.sqrtNext;
    remaining -= step.amountIn + step.feeAmount;
    out += step.amountOut;
    if (sqrtPrice === sqrtNext) {
      if (initialized) {
        ticksCrossed += 1;
        const net = pool.liquidityNet.get(next) ?? 0n;
        liquidity += zeroForOne ? -net : net;
      }
      tick = zeroForOne ? next - 1 : next;
    } else if (sqrtPrice !== start) {
      break; // the step ended inside a range: the input is used up
    }
  }
  return { amountOut: out, amountUsed: amountIn - remaining, ticksCrossed };
}
