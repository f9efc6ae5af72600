import { ERC20, V2_FACTORY, V2_PAIR, V3_FACTORY, V3_POOL } from './pool-abi.js';
import type { JsonRpcClient, RpcCall } from './json-rpc.js';
import { bitmapPosition, compress } from './v3-math.js';
import type { V3PoolState } from './v3-quote.js';
import type { SourceName } from '../swap-api.js';
import {
  bitmapKey,
  decodeWords,
  extsloadCall,
  liquidityKey,
  liquidityNetOf,
  v4PoolState,
  poolStateSlot,
  slot0Key,
  tickKey,
} from './v4-state.js';

const ZERO = '0x0000000000000000000000000000000000000000';
/** Bitmap words read on each side of the current tick before a quote asks for more. */
const WORDS_AROUND = 2;

export interface PoolRef {
  source: SourceName;
  kind: 'v2' | 'v3' | 'v4';
  /** The pool's address; for V4 its PoolId (32 bytes, lower-case hex). */
  address: string;
  /** ERC-20s in the pool's order; for a native V4 pool the wrapped token stands in for native. */
  token0: string;
  token1: string;
  /** V2: fee in bps from settings; V3: fee tier in hundredths of a bip; V4: the key's LP fee in pips. */
  fee: number;
  /** V4: the PoolManager and the key as the pool holds it (the zero address is native). */
  v4?: { manager: string; currency0: string; currency1: string; tickSpacing: number };
}

export interface V2State {
  reserve0: bigint;
  reserve1: bigint;
  /** The pair's blockTimestampLast: equal to the block's time when it traded in that block. */
  timestampLast?: number;
}

export type PoolState = { kind: 'v2'; state: V2State } | { kind: 'v3' | 'v4'; state: V3PoolState };

/** A block to read at: the number as the call tag, the hash as the cache key. */
export interface BlockRef {
  tag: string;
  hash: string;
  /** The block's time (seconds), when known. */
  timestamp?: number;
}

export interface FactoryQuery {
  source: SourceName;
  kind: 'v2' | 'v3';
  factory: string;
  tokenA: string;
  tokenB: string;
  fee: number;
}

const lower = (a: string) => a.toLowerCase();
export const sortTokens = (a: string, b: string): [string, string] => (BigInt(a) < BigInt(b) ? [lower(a), lower(b)] : [lower(b), lower(a)]);
const word = (hex: string, i: number) => BigInt(`0x${hex.slice(2 + i * 64, 2 + (i + 1) * 64) || '0'}`);
const int24 = (v: bigint) => Number(BigInt.asIntN(24, v));
const int128 = (v: bigint) => BigInt.asIntN(128, v);
const ethCall = (to: string, data: string, block: BlockRef): RpcCall => ({ method: 'eth_call', params: [{ to, data }, block.tag] });

function factoryKey(q: FactoryQuery): string {
  const [a, b] = sortTokens(q.tokenA, q.tokenB);
  return `${lower(q.factory)}:${a}:${b}:${q.fee}`;
}

/**
 * Reads pools over JSON-RPC in batches: addresses from the factories (kept for good, pools do not
 * move), and state per block (reserves; slot0, liquidity, bitmap words and initialized ticks).
 */
export class PoolReader {
  /** Pool address per factory query; a "no pool" answer holds only for the block it was read at. */
  private readonly addresses = new Map<string, { address: string | null; block: string }>();
  private readonly spacing = new Map<string, number>();
  private readonly decimals = new Map<string, number>();
  private stateBlock = '';
  /** V4 pools: their PoolManager and state slot, for extsload. */
  private readonly v4Slots = new Map<string, { manager: string; slot: bigint }>();
  private states = new Map<string, PoolState>();

  constructor(private readonly rpc: JsonRpcClient) {}

  /** Pool addresses for the queries (null where the factory has none). Empty pools are not cached. */
  async discover(queries: FactoryQuery[], block: BlockRef, signal: AbortSignal): Promise<PoolRef[]> {
    const known = (q: FactoryQuery) => {
      const hit = this.addresses.get(factoryKey(q));
      return hit !== undefined && (hit.address !== null || hit.block === block.hash);
    };
    const unknown = queries.filter((q) => !known(q));
    const calls = unknown.map((q) => {
      const [a, b] = sortTokens(q.tokenA, q.tokenB);
      const data =
        q.kind === 'v2' ? V2_FACTORY.encodeFunctionData('getPair', [a, b]) : V3_FACTORY.encodeFunctionData('getPool', [a, b, q.fee]);
      return ethCall(q.factory, data, block);
    });
    const results = await this.rpc.batch<string>(calls, signal);
    unknown.forEach((q, i) => {
      const addr = `0x${results[i].slice(-40)}`;
      this.addresses.set(factoryKey(q), { address: addr === ZERO ? null : lower(addr), block: block.hash });
    });
    const refs: PoolRef[] = [];
    for (const q of queries) {
      const address = this.addresses.get(factoryKey(q))?.address;
      if (!address) continue;
      const [token0, token1] = sortTokens(q.tokenA, q.tokenB);
      refs.push({ source: q.source, kind: q.kind, address, token0, token1, fee: q.fee });
    }
    return refs;
  }

  /** State of each pool at `block`; cached for that block. */
  async readStates(pools: PoolRef[], block: BlockRef, signal: AbortSignal): Promise<Map<string, PoolState>> {
    if (block.hash !== this.stateBlock) {
      this.stateBlock = block.hash;
      this.states = new Map();
    }
    const missing = pools.filter((p) => !this.states.has(p.address) && p.kind !== 'v4');
    const missingV4 = pools.filter((p) => !this.states.has(p.address) && p.kind === 'v4');
    const calls: RpcCall[] = [];
    const v4Managers = new Map<string, PoolRef[]>();
    for (const p of missingV4) v4Managers.set(p.v4!.manager, [...(v4Managers.get(p.v4!.manager) ?? []), p]);
    for (const [manager, list] of v4Managers) {
      const keys = list.flatMap((p) => {
        const slot = this.v4Slot(p).slot;
        return [slot0Key(slot), liquidityKey(slot)];
      });
      calls.push(extsloadCall(manager, keys, block.tag));
    }
    for (const p of missing) {
      if (p.kind === 'v2') calls.push(ethCall(p.address, V2_PAIR.encodeFunctionData('getReserves'), block));
      else {
        calls.push(ethCall(p.address, V3_POOL.encodeFunctionData('slot0'), block));
        calls.push(ethCall(p.address, V3_POOL.encodeFunctionData('liquidity'), block));
        if (!this.spacing.has(p.address)) calls.push(ethCall(p.address, V3_POOL.encodeFunctionData('tickSpacing'), block));
      }
    }
    const results = await this.rpc.batch<string>(calls, signal);
    let k = 0;
    const v3: { ref: PoolRef; state: V3PoolState }[] = [];
    for (const list of v4Managers.values()) {
      const words = decodeWords(results[k++]);
      list.forEach((p, i) => {
        const state = v4PoolState(words[2 * i], words[2 * i + 1], p.v4!.tickSpacing);
        if (!state) return;
        this.states.set(p.address, { kind: 'v4', state });
        v3.push({ ref: p, state });
      });
    }
    for (const p of missing) {
      if (p.kind === 'v2') {
        const r = results[k++];
        this.states.set(p.address, {
          kind: 'v2',
          state: { reserve0: word(r, 0), reserve1: word(r, 1), timestampLast: Number(word(r, 2)) },
        });
        continue;
      }
      const slot0 = results[k++];
      const liquidity = word(results[k++], 0);
      if (!this.spacing.has(p.address)) this.spacing.set(p.address, int24(word(results[k++], 0)));
      const state: V3PoolState = {
        sqrtPriceX96: word(slot0, 0),
        tick: int24(word(slot0, 1)),
        liquidity,
        fee: p.fee,
        tickSpacing: this.spacing.get(p.address)!,
        bitmap: new Map(),
        liquidityNet: new Map(),
      };
      this.states.set(p.address, { kind: 'v3', state });
      v3.push({ ref: p, state });
    }
    await this.loadWords(
      v3.flatMap(({ ref, state }) => {
        const center = bitmapPosition(compress(state.tick, state.tickSpacing)).word;
        return Array.from({ length: 2 * WORDS_AROUND + 1 }, (_, i) => ({ pool: ref.address, state, word: center - WORDS_AROUND + i }));
      }),
      block,
      signal,
    );
    return this.states;
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
    v3Index.forEach((i, k) => (out[i] = word(results[k], 0)));
    let k = v3Index.length;
    for (const idx of byManager.values()) {
      const words = decodeWords(results[k++]);
      idx.forEach((i, j) => (out[i] = words[j]));
    }
    return out;
  }

  /** Reads bitmap words and the liquidityNet of every initialized tick in them. */
  async loadWords(requests: { pool: string; state: V3PoolState; word: number }[], block: BlockRef, signal: AbortSignal): Promise<void> {
    const todo = requests.filter((r) => !r.state.bitmap.has(r.word) && r.word >= -32768 && r.word <= 32767);
    const words = await this.readItems(
      todo,
      (r) => ethCall(r.pool, V3_POOL.encodeFunctionData('tickBitmap', [r.word]), block),
      (slot, r) => bitmapKey(slot, r.word),
      signal,
      block,
    );
    const tickCalls: { pool: string; state: V3PoolState; tick: number }[] = [];
    todo.forEach((r, i) => {
      const bits = words[i];
      r.state.bitmap.set(r.word, bits);
      for (let bit = 0; bit < 256; bit++) {
        if ((bits >> BigInt(bit)) & 1n) tickCalls.push({ pool: r.pool, state: r.state, tick: (r.word * 256 + bit) * r.state.tickSpacing });
      }
    });
    // V3 ticks() answers (liquidityGross, liquidityNet, …); a V4 tick word packs both.
    const nets = await this.readTickNets(tickCalls, block, signal);
    tickCalls.forEach((t, i) => t.state.liquidityNet.set(t.tick, nets[i]));
  }

  private async readTickNets(ticks: { pool: string; tick: number }[], block: BlockRef, signal: AbortSignal): Promise<bigint[]> {
    const v3 = ticks.filter((t) => !this.v4Slots.has(t.pool));
    const v3Answers = await this.rpc.batch<string>(
      v3.map((t) => ethCall(t.pool, V3_POOL.encodeFunctionData('ticks', [t.tick]), block)),
      signal,
    );
    const v3Nets = new Map(v3.map((t, i) => [t, int128(word(v3Answers[i], 1))]));
    const v4 = ticks.filter((t) => this.v4Slots.has(t.pool));
    const v4Words =
      v4.length === 0
        ? []
        : await this.readItems(
            v4,
            () => ({ method: '', params: [] }),
            (slot, t) => tickKey(slot, t.tick),
            signal,
            block,
          );
    const v4Nets = new Map(v4.map((t, i) => [t, liquidityNetOf(v4Words[i])]));
    return ticks.map((t) => v3Nets.get(t) ?? v4Nets.get(t) ?? 0n);
  }

  async tokenDecimals(tokens: string[], block: BlockRef, signal: AbortSignal): Promise<Map<string, number>> {
    const unknown = [...new Set(tokens.map(lower))].filter((t) => !this.decimals.has(t));
    const results = await this.rpc.batch<string>(
      unknown.map((t) => ethCall(t, ERC20.encodeFunctionData('decimals'), block)),
      signal,
    );
    unknown.forEach((t, i) => this.decimals.set(t, Number(word(results[i], 0))));
    return this.decimals;
  }
}
