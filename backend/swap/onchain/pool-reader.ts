import { answerWord } from './abi-words.js';
import { ERC20 } from './pool-abi.js';
import { tickBitmapData, ticksData } from './pool-calls.js';
import type { RpcCall } from './json-rpc.js';
import type { MulticallClient } from './multicall.js';
import { MAX_SHAPE_WORDS, stateRound, unreadTicks, type PoolShape } from './state-round.js';
import { bitmapPosition, compress } from './v3-math.js';
import type { V3PoolState } from './v3-quote.js';
import { bitmapKey, decodeWords, extsloadCall, liquidityNetOf, poolStateSlot, tickKey } from './v4-state.js';

/** Bitmap words read on each side of the current tick before a quote asks for more. */
const WORDS_AROUND = 16;
/** Blocks whose pool states stay cached: a request may still compute at the previous one. */
const KEPT_BLOCKS = 4;

export type { BlockRef, PoolRef, PoolState, V2State } from './pool-types.js';
import type { BlockRef, PoolRef, PoolState } from './pool-types.js';

const lower = (a: string) => a.toLowerCase();
export { sortTokens, type FactoryQuery } from './pool-lookup.js';
const int128 = (v: bigint) => BigInt.asIntN(128, v);
const ethCall = (to: string, data: string, block: BlockRef): RpcCall => ({ method: 'eth_call', params: [{ to, data }, block.tag] });

/**
 * Reads pools over JSON-RPC in batches: addresses from the factories (kept for good, pools do not
 * move), and state per block (reserves; slot0, liquidity, bitmap words and initialized ticks).
 */
export class PoolReader {
  /** Pool address per factory query; a "no pool" answer holds only for the block it was read at. */
  private readonly spacing = new Map<string, number>();
  private readonly decimals = new Map<string, number>();
  private readonly decimalReads = new Map<string, Promise<void>>();
  /** V4 pools: their PoolManager and state slot, for extsload. */
  private readonly v4Slots = new Map<string, { manager: string; slot: bigint }>();
  /** Pools' states per block hash, for the last KEPT_BLOCKS blocks. */
  private readonly blocks = new Map<string, Map<string, PoolState>>();
  /** What each pool had at the last block read: reread in the same round trip at the next one. */
  private readonly shapes = new Map<string, PoolShape>();
  /** V2 pairs whose price accumulators are known to be non-zero. */
  private readonly accumulated = new Set<string>();

  constructor(readonly rpc: MulticallClient) {}

  /** State of each pool at `block`; cached for that block (the last few blocks are kept). */
  async readStates(pools: PoolRef[], block: BlockRef, signal: AbortSignal): Promise<Map<string, PoolState>> {
    const states = this.statesAt(block);
    const missing = pools.filter((p) => !states.has(p.address));
    if (missing.length === 0) return states;
    const round = this.round(missing, block.tag);
    const results = await this.rpc.batch<string>(round.calls, signal);
    await this.settle(round.apply(results), states, block, signal);
    return states;
  }

  /**
   * The head block and the pools' state in one round trip: `headCalls` (eth_getBlockByNumber
   * "latest" first) and the state calls at "latest" go in the same batch, and Multicall3 reports
   * the block it read. When that is not the head's block (a block arrived in between, or the node
   * has no Multicall3) the states are not kept and `states` is undefined.
   */
  async readAtHead(
    pools: PoolRef[],
    headCalls: RpcCall[],
    toBlock: (head: unknown) => BlockRef,
    signal: AbortSignal,
    extra: { calls: RpcCall[]; apply: (results: string[], block: BlockRef) => void } = { calls: [], apply: () => {} },
  ): Promise<{ head: unknown[]; block: BlockRef; states?: Map<string, PoolState> }> {
    const round = this.round(pools, 'latest');
    const answer = await this.rpc.batchAt<unknown>([...headCalls, ...round.calls, ...extra.calls], signal);
    const head = answer.results.slice(0, headCalls.length);
    const block = toBlock(head[0]);
    const number = Number(BigInt(block.tag));
    const sent = round.calls.length + extra.calls.length;
    const rest = answer.results.slice(headCalls.length) as string[];
    if (sent > 0 && (answer.latestBlocks.length === 0 || answer.latestBlocks.some((n) => n !== number))) {
      // A block arrived in between: the states are not the head's, but lookups answered at a later
      // block still tell the head's ("no pool" then was no pool before either).
      const read = Math.min(...answer.latestBlocks);
      if (answer.latestBlocks.length > 0 && read >= number)
        extra.apply(rest.slice(round.calls.length), { tag: `0x${read.toString(16)}`, hash: '' });
      return { head, block };
    }
    const pinned = { ...block };
    const states = this.statesAt(pinned);
    extra.apply(rest.slice(round.calls.length), pinned);
    await this.settle(round.apply(rest.slice(0, round.calls.length)), states, pinned, signal);
    return { head, block: pinned, states };
  }

  private statesAt(block: BlockRef): Map<string, PoolState> {
    let states = this.blocks.get(block.hash);
    if (!states) {
      states = new Map();
      this.blocks.set(block.hash, states);
      if (this.blocks.size > KEPT_BLOCKS) this.blocks.delete(this.blocks.keys().next().value as string);
    }
    return states;
  }

  private round(pools: PoolRef[], tag: string) {
    return stateRound(pools, tag, {
      shape: (a) => this.shapes.get(a),
      spacing: this.spacing,
      v4Slot: (p) => this.v4Slot(p).slot,
      accumulated: this.accumulated,
    });
  }

  /** Stores the first round's states and reads what they still lack: words near the price, new ticks. */
  private async settle(read: { ref: PoolRef; state: PoolState }[], states: Map<string, PoolState>, block: BlockRef, signal: AbortSignal) {
    const words: { pool: string; state: V3PoolState; word: number }[] = [];
    const ticks: { pool: string; state: V3PoolState; tick: number }[] = [];
    for (const { ref, state } of read) {
      if (ref.kind === 'v4') this.v4Slot(ref);
      if (state.kind === 'v2') continue;
      const s = state.state;
      const center = bitmapPosition(compress(s.tick, s.tickSpacing)).word;
      for (let w = center - WORDS_AROUND; w <= center + WORDS_AROUND; w++)
        if (!s.bitmap.has(w)) words.push({ pool: ref.address, state: s, word: w });
      for (const tick of unreadTicks(s)) ticks.push({ pool: ref.address, state: s, tick });
    }
    const nets = this.readTickNets(ticks, block, signal);
    await Promise.all([
      this.loadWords(words, block, signal),
      nets.then((n) => ticks.forEach((t, i) => t.state.liquidityNet.set(t.tick, n[i]))),
    ]);
    // Published only when complete, and never over a state a request at this block already uses.
    for (const { ref, state } of read) {
      if (state.kind !== 'v2') this.remember(ref.address, state.state);
      if (!states.has(ref.address)) states.set(ref.address, state);
    }
  }

  /** Keeps the pool's read words (nearest the price first) and initialized ticks for the next block. */
  private remember(pool: string, s: V3PoolState): void {
    const center = bitmapPosition(compress(s.tick, s.tickSpacing)).word;
    const words = [...s.bitmap.keys()]
      .sort((a, b) => Math.abs(a - center) - Math.abs(b - center))
      .slice(0, MAX_SHAPE_WORDS[this.v4Slots.has(pool) ? 'v4' : 'v3']);
    const keep = new Set(words);
    const ticks = [...s.liquidityNet.keys()].filter((t) => keep.has(bitmapPosition(compress(t, s.tickSpacing)).word));
    this.shapes.set(pool, { words: keep, ticks: new Set(ticks) });
  }

  private v4Slot(p: PoolRef): { manager: string; slot: bigint } {
    let hit = this.v4Slots.get(p.address);
    if (!hit) {
      hit = { manager: p.v4!.manager, slot: poolStateSlot(p.address) };
      this.v4Slots.set(p.address, hit);
    }
    return hit;
  }

  /**
   * One RPC call per V3 item, or for V4 pools one extsload per PoolManager holding all of their
   * slots; answers in item order.
   */
  private async readItems<T extends { pool: string }>(
    items: T[],
    v3Call: (item: T) => RpcCall,
    v4Key: (slot: bigint, item: T) => string,
    signal: AbortSignal,
    block: BlockRef,
    v3Value: (result: string) => bigint = (r) => answerWord(r, 0),
    v4Value: (w: bigint) => bigint = (w) => w,
  ): Promise<bigint[]> {
    const out = new Array<bigint>(items.length);
    const calls: RpcCall[] = [];
    const v3Index: number[] = [];
    const byManager = new Map<string, number[]>();
    items.forEach((item, i) => {
      const v4 = this.v4Slots.get(item.pool);
      if (!v4) {
        v3Index.push(i);
        calls.push(v3Call(item));
      } else byManager.set(v4.manager, [...(byManager.get(v4.manager) ?? []), i]);
    });
    for (const [manager, idx] of byManager) {
      calls.push(
        extsloadCall(
          manager,
          idx.map((i) => v4Key(this.v4Slots.get(items[i].pool)!.slot, items[i])),
          block.tag,
        ),
      );
    }
    const results = await this.rpc.batch<string>(calls, signal);
    v3Index.forEach((i, k) => (out[i] = v3Value(results[k])));
    let k = v3Index.length;
    for (const idx of byManager.values()) {
      const words = decodeWords(results[k++]);
      idx.forEach((i, j) => (out[i] = v4Value(words[j])));
    }
    return out;
  }

  /** Reads bitmap words and the liquidityNet of every initialized tick in them. */
  async loadWords(requests: { pool: string; state: V3PoolState; word: number }[], block: BlockRef, signal: AbortSignal): Promise<void> {
    const todo = requests.filter((r) => !r.state.bitmap.has(r.word) && r.word >= -32768 && r.word <= 32767);
    const words = await this.readItems(
      todo,
      (r) => ethCall(r.pool, tickBitmapData(r.word), block),
      (slot, r) => bitmapKey(slot, r.word),
      signal,
      block,
    );
    const tickCalls: { pool: string; state: V3PoolState; tick: number }[] = [];
    todo.forEach((r, i) => {
      const bits = words[i];
      for (let bit = 0; bit < 256; bit++) {
        if ((bits >> BigInt(bit)) & 1n) tickCalls.push({ pool: r.pool, state: r.state, tick: (r.word * 256 + bit) * r.state.tickSpacing });
      }
    });
    // V3 ticks() answers (liquidityGross, liquidityNet, …); a V4 tick word packs both.
    const nets = await this.readTickNets(tickCalls, block, signal);
    // A word appears only with its ticks' nets: another request quoting this block's state
    // meanwhile would cross its ticks with a net of 0 and keep that step (v3-quote's step table).
    tickCalls.forEach((t, i) => t.state.liquidityNet.set(t.tick, nets[i]));
    todo.forEach((r, i) => r.state.bitmap.set(r.word, words[i]));
    for (const r of new Map(todo.map((r) => [r.pool, r.state]))) this.remember(r[0], r[1]);
  }

  /** liquidityNet of each tick: V3 ticks() and V4 tick words in one batch. */
  private readTickNets(ticks: { pool: string; tick: number }[], block: BlockRef, signal: AbortSignal): Promise<bigint[]> {
    return this.readItems(
      ticks,
      (t) => ethCall(t.pool, ticksData(t.tick), block),
      (slot, t) => tickKey(slot, t.tick),
      signal,
      block,
      (r) => int128(answerWord(r, 1)),
      liquidityNetOf,
    );
  }

  /** Decimals of `tokens` (read once per token, at "latest": they do not change; reads in flight are shared). */
  async tokenDecimals(tokens: string[], signal: AbortSignal): Promise<Map<string, number>> {
    const list = [...new Set(tokens.map(lower))];
    const unknown = list.filter((t) => !this.decimals.has(t) && !this.decimalReads.has(t));
    if (unknown.length > 0) {
      const read = this.rpc
        .batch<string>(
          unknown.map((t) => ethCall(t, ERC20.encodeFunctionData('decimals'), { tag: 'latest', hash: '' })),
          signal,
        )
        .then((results) => unknown.forEach((t, i) => this.decimals.set(t, Number(answerWord(results[i], 0)))))
        .finally(() => unknown.forEach((t) => this.decimalReads.delete(t)));
      unknown.forEach((t) => this.decimalReads.set(t, read));
    }
    await Promise.all(list.map((t) => this.decimalReads.get(t)));
    return this.decimals;
  }
}
