import {
  computeSwapStep,
  getAmount0Delta,
  getAmount1Delta,
  getSqrtRatioAtTick,
  MAX_SQRT_RATIO,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
  mulDiv,
  mulDivRoundingUp,
  nextInitializedTickWithinOneWord,
} from './v3-math.js';

/** What a V3 quote needs of a pool: slot0, liquidity, spacing and the bitmap words read so far. */
export interface V3PoolState {
  sqrtPriceX96: bigint;
  tick: number;
  liquidity: bigint;
  fee: number;
  /**
   * V4: the swap fee per direction (zeroForOne, oneForZero), the protocol fee added on top of the
   * LP fee; it replaces `fee` when set.
   */
  fees?: [number, number];
  tickSpacing: number;
  /** Bitmap words that were read (word position → word). */
  bitmap: Map<number, bigint>;
  /** liquidityNet of every initialized tick inside the read words. */
  liquidityNet: Map<number, bigint>;
}

/** Thrown when the trade walks into a bitmap word that was not read: the caller reads more. */
export class MissingTickData extends Error {
  constructor(
    readonly word: number,
    /** The pool state whose word is missing. */
    readonly pool?: V3PoolState,
  ) {
    super(`bitmap word ${word} not loaded`);
  }
}

/**
 * The steps a swap from the pool's current state takes in one direction, exactly as the pool's
 * loop takes them (to each initialized tick or word boundary). A full step's input, fee and output
 * do not depend on the trade size, so they are computed once per block and every quote only walks
 * the table and computes its last, partial step.
 */
interface Step {
  start: bigint;
  target: bigint;
  liquidity: bigint;
  cost: bigint; // amountIn + feeAmount of the full step
  amountIn: bigint;
  amountOut: bigint;
  crosses: boolean;
}

interface StepTable {
  steps: Step[];
  sqrtPrice: bigint;
  tick: number;
  liquidity: bigint;
  /** The price limit was reached: no more steps. */
  done: boolean;
}

function feeFor(pool: V3PoolState, zeroForOne: boolean): number {
  return pool.fees ? pool.fees[zeroForOne ? 0 : 1] : pool.fee;
}

const tables = new WeakMap<V3PoolState, [StepTable | undefined, StepTable | undefined]>();

function table(pool: V3PoolState, zeroForOne: boolean): StepTable {
  let pair = tables.get(pool);
  if (!pair) {
    pair = [undefined, undefined];
    tables.set(pool, pair);
  }
  const i = zeroForOne ? 0 : 1;
  pair[i] ??= { steps: [], sqrtPrice: pool.sqrtPriceX96, tick: pool.tick, liquidity: pool.liquidity, done: false };
  return pair[i];
}

/** Appends the next step of the swap loop (TickBitmap walk, clamping, price limit 0 = extreme). */
function extend(pool: V3PoolState, t: StepTable, zeroForOne: boolean): void {
  const limit = zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n;
  const word = (pos: number) => {
    const w = pool.bitmap.get(pos);
    if (w === undefined) throw new MissingTickData(pos, pool);
    return w;
  };
  let { next, initialized } = nextInitializedTickWithinOneWord(word, t.tick, pool.tickSpacing, zeroForOne);
  if (next < MIN_TICK) next = MIN_TICK;
  else if (next > MAX_TICK) next = MAX_TICK;
  const sqrtNext = getSqrtRatioAtTick(next);
  const target = (zeroForOne ? sqrtNext < limit : sqrtNext > limit) ? limit : sqrtNext;
  const L = t.liquidity;
  const amountIn = zeroForOne ? getAmount0Delta(target, t.sqrtPrice, L, true) : getAmount1Delta(t.sqrtPrice, target, L, true);
  const amountOut = zeroForOne ? getAmount1Delta(target, t.sqrtPrice, L, false) : getAmount0Delta(t.sqrtPrice, target, L, false);
  const fee = BigInt(feeFor(pool, zeroForOne));
  const feeAmount = mulDivRoundingUp(amountIn, fee, 1_000_000n - fee);
  const crosses = target === sqrtNext && initialized;
  t.steps.push({ start: t.sqrtPrice, target, liquidity: L, cost: amountIn + feeAmount, amountIn, amountOut, crosses });
  t.sqrtPrice = target;
  if (target === sqrtNext) {
    if (initialized) {
      const net = pool.liquidityNet.get(next) ?? 0n;
      t.liquidity += zeroForOne ? -net : net;
    }
    t.tick = zeroForOne ? next - 1 : next;
  }
  if (target === limit) t.done = true;
}

/**
 * Exact-input swap simulation, step for step as the pool executes it (price limit 0 means the
 * extreme bound, as the adapter passes). Returns the output, the input actually used and the
 * initialized ticks crossed.
 */
export function quoteV3ExactIn(
  pool: V3PoolState,
  amountIn: bigint,
  zeroForOne: boolean,
): { amountOut: bigint; amountUsed: bigint; ticksCrossed: number } {
  if (amountIn <= 0n) return { amountOut: 0n, amountUsed: 0n, ticksCrossed: 0 };
  const t = table(pool, zeroForOne);
  const feePips = feeFor(pool, zeroForOne);
  const keep = 1_000_000n - BigInt(feePips);
  let remaining = amountIn;
  let out = 0n;
  let ticksCrossed = 0;
  for (let k = 0; remaining !== 0n; k++) {
    if (k === t.steps.length) {
      if (t.done) break; // the price limit: the pool takes no more
      extend(pool, t, zeroForOne);
    }
    const step = t.steps[k];
    if (mulDiv(remaining, keep, 1_000_000n) >= step.amountIn) {
      remaining -= step.cost;
      out += step.amountOut;
      if (step.crosses) ticksCrossed += 1;
      continue;
    }
    const partial = computeSwapStep(step.start, step.target, step.liquidity, remaining, feePips);
    out += partial.amountOut;
    remaining -= partial.amountIn + partial.feeAmount;
    break;
  }
  return { amountOut: out, amountUsed: amountIn - remaining, ticksCrossed };
}
