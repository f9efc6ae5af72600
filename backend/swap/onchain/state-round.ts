/**
 * The first (usually only) round of reading pools' state at a block: besides slot0 and liquidity
 * it reads again the bitmap words and initialized ticks the pool had at the last block read, so a
 * pool refreshed once per block costs one round trip unless its price moved into unread words or
 * liquidity was added at a new tick.
 */
import { answerWord } from './abi-words.js';
import type { RpcCall } from './json-rpc.js';
import { GET_RESERVES, LIQUIDITY, PRICE0_CUMULATIVE_LAST, SLOT0, TICK_SPACING, tickBitmapData, ticksData } from './pool-calls.js';
import type { PoolRef, PoolState } from './pool-types.js';
import type { V3PoolState } from './v3-quote.js';
import { bitmapKey, decodeWords, extsloadCall, liquidityKey, liquidityNetOf, slot0Key, tickKey, v4PoolState } from './v4-state.js';

/** Bitmap words and initialized ticks a pool had when last read; reread at the next block. */
export interface PoolShape {
  words: Set<number>;
  ticks: Set<number>;
}

/**
 * Words kept per pool for the next block's read (the ones nearest the price win). A V3 word is a
 * Multicall3 sub-call of its own; fewer (16) made large trades reload words each block.
 */
export const MAX_SHAPE_WORDS = { v3: 80, v4: 80 };

const int24 = (v: bigint) => Number(BigInt.asIntN(24, v));
const int128 = (v: bigint) => BigInt.asIntN(128, v);

export interface RoundContext {
  shape: (pool: string) => PoolShape | undefined;
  spacing: Map<string, number>;
  v4Slot: (p: PoolRef) => bigint;
  /** V2 pairs whose price accumulators were seen non-zero: they never go back, so are not read again. */
  accumulated: Set<string>;
}

export interface StateRound {
  calls: RpcCall[];
  /** Decodes the answers (in call order) into states; V3/V4 states carry the reread words and ticks. */
  apply(results: string[]): { ref: PoolRef; state: PoolState }[];
}

export function stateRound(pools: PoolRef[], tag: string, ctx: RoundContext): StateRound {
  const calls: RpcCall[] = [];
  const call = (to: string, data: string, optional?: true) => calls.push({ method: 'eth_call', params: [{ to, data }, tag], optional });
  const plan: { ref: PoolRef; words: number[]; ticks: number[]; spacing: boolean; accumulator?: boolean }[] = [];
  const byManager = new Map<string, { ref: PoolRef; words: number[]; ticks: number[] }[]>();
  for (const p of pools) {
    const shape = ctx.shape(p.address);
    const words = shape ? [...shape.words] : [];
    const ticks = shape ? [...shape.ticks] : [];
    if (p.kind === 'v4') {
      const list = byManager.get(p.v4!.manager) ?? [];
      byManager.set(p.v4!.manager, list);
      list.push({ ref: p, words, ticks });
      continue;
    }
    if (p.kind === 'v2') {
      call(p.address, GET_RESERVES);
      // A pair whose accumulators are zero costs its first later swap two zero-to-non-zero writes.
      const accumulator = !ctx.accumulated.has(p.address);
      // Optional: a fork's pair without the accumulator still routes (without the extra headroom).
      if (accumulator) call(p.address, PRICE0_CUMULATIVE_LAST, true);
      plan.push({ ref: p, words: [], ticks: [], spacing: false, accumulator });
      continue;
    }
    call(p.address, SLOT0);
    call(p.address, LIQUIDITY);
    const spacing = !ctx.spacing.has(p.address);
    if (spacing) call(p.address, TICK_SPACING);
    for (const w of words) call(p.address, tickBitmapData(w));
    for (const t of ticks) call(p.address, ticksData(t));
    plan.push({ ref: p, words, ticks, spacing });
  }
  const v4Plan = [...byManager.entries()];
  for (const [manager, list] of v4Plan) {
    const keys = list.flatMap(({ ref, words, ticks }) => {
      const slot = ctx.v4Slot(ref);
      return [slot0Key(slot), liquidityKey(slot), ...words.map((w) => bitmapKey(slot, w)), ...ticks.map((t) => tickKey(slot, t))];
    });
    calls.push(extsloadCall(manager, keys, tag));
  }

  const apply = (results: string[]) => {
    const out: { ref: PoolRef; state: PoolState }[] = [];
    let k = 0;
    for (const { ref, words, ticks, spacing, accumulator } of plan) {
      if (ref.kind === 'v2') {
        const r = results[k++];
        const acc = accumulator ? results[k++] : undefined;
        const zero = acc !== undefined && acc !== '0x' && answerWord(acc, 0) === 0n;
        if (accumulator && !zero) ctx.accumulated.add(ref.address);
        const state = {
          reserve0: answerWord(r, 0),
          reserve1: answerWord(r, 1),
          timestampLast: Number(answerWord(r, 2)),
          accumulatorsZero: zero,
        };
        out.push({ ref, state: { kind: 'v2', state } });
        continue;
      }
      const slot0 = results[k++];
      const liquidity = answerWord(results[k++], 0);
      if (spacing) ctx.spacing.set(ref.address, int24(answerWord(results[k++], 0)));
      const state: V3PoolState = {
        sqrtPriceX96: answerWord(slot0, 0),
        tick: int24(answerWord(slot0, 1)),
        liquidity,
        fee: ref.fee,
        tickSpacing: ctx.spacing.get(ref.address)!,
        bitmap: new Map(),
        liquidityNet: new Map(),
      };
      const bits = words.map(() => answerWord(results[k++], 0));
      const nets = ticks.map(() => int128(answerWord(results[k++], 1)));
      fillKnown(state, words, bits, ticks, nets);
      out.push({ ref, state: { kind: 'v3', state } });
    }
    for (const [, list] of v4Plan) {
      const w = decodeWords(results[k++]);
      let j = 0;
      for (const { ref, words, ticks } of list) {
        const state = v4PoolState(w[j], w[j + 1], ref.v4!.tickSpacing);
        j += 2;
        const bits = words.map(() => w[j++]);
        const nets = ticks.map(() => liquidityNetOf(w[j++]));
        if (!state) continue;
        fillKnown(state, words, bits, ticks, nets);
        out.push({ ref, state: { kind: 'v4', state } });
      }
    }
    return out;
  };
  return { calls, apply };
}

/** Sets the reread words and the nets of ticks whose bit is still set (a cleared tick is dropped). */
function fillKnown(state: V3PoolState, words: number[], bits: bigint[], ticks: number[], nets: bigint[]): void {
  words.forEach((w, i) => state.bitmap.set(w, bits[i]));
  ticks.forEach((t, i) => {
    const compressed = Math.floor(t / state.tickSpacing);
    const wordPos = compressed >> 8;
    const bit = ((compressed % 256) + 256) % 256;
    const map = state.bitmap.get(wordPos);
    if (map !== undefined && (map >> BigInt(bit)) & 1n) state.liquidityNet.set(t, nets[i]);
  });
}

/** The ticks whose bit is set in the pool's read words but whose liquidityNet is not known. */
export function unreadTicks(state: V3PoolState): number[] {
  const out: number[] = [];
  for (const [w, bits] of state.bitmap) {
    if (bits === 0n) continue;
    for (let bit = 0; bit < 256; bit++) {
      if ((bits >> BigInt(bit)) & 1n) {
        const tick = (w * 256 + bit) * state.tickSpacing;
        if (!state.liquidityNet.has(tick)) out.push(tick);
      }
    }
  }
  return out;
}
