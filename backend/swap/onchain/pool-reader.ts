import { ERC20, V2_FACTORY, V2_PAIR, V3_FACTORY, V3_POOL } from './pool-abi.js';
import type { JsonRpcClient, RpcCall } from './json-rpc.js';
import { bitmapPosition, compress } from './v3-math.js';
import type { V3PoolState } from './v3-quote.js';
import type { SourceName } from '../route-request.js';

const ZERO = '0x0000000000000000000000000000000000000000';
/** Bitmap words read on each side of the current tick before a quote asks for more. */
const WORDS_AROUND = 2;

export interface PoolRef {
  source: SourceName;
  kind: 'v2' | 'v3';
  address: string;
  token0: string;
  token1: string;
  /** V2: fee in bps from settings; V3: fee tier in hundredths of a bip. */
  fee: number;
}

export interface V2State {
  reserve0: bigint;
  reserve1: bigint;
}

export type PoolState = { kind: 'v2'; state: V2State } | { kind: 'v3'; state: V3PoolState };

/** A block to read at: the number as the call tag, the hash as the cache key. */
export interface BlockRef {
  tag: string;
  hash: string;
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
    const missing = pools.filter((p) => !this.states.has(p.address));
    const calls: RpcCall[] = [];
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
    for (const p of missing) {
      if (p.kind === 'v2') {
        const r = results[k++];
        this.states.set(p.address, { kind: 'v2', state: { reserve0: word(r, 0), reserve1: word(r, 1) } });
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

  /** Reads bitmap words and the liquidityNet of every initialized tick in them. */
  async loadWords(requests: { pool: string; state: V3PoolState; word: number }[], block: BlockRef, signal: AbortSignal): Promise<void> {
    const todo = requests.filter((r) => !r.state.bitmap.has(r.word) && r.word >= -32768 && r.word <= 32767);
    const words = await this.rpc.batch<string>(
      todo.map((r) => ethCall(r.pool, V3_POOL.encodeFunctionData('tickBitmap', [r.word]), block)),
      signal,
    );
    const tickCalls: { pool: string; state: V3PoolState; tick: number }[] = [];
    todo.forEach((r, i) => {
      const bits = word(words[i], 0);
      r.state.bitmap.set(r.word, bits);
      for (let bit = 0; bit < 256; bit++) {
        if ((bits >> BigInt(bit)) & 1n) tickCalls.push({ pool: r.pool, state: r.state, tick: (r.word * 256 + bit) * r.state.tickSpacing });
      }
    });
    const ticks = await this.rpc.batch<string>(
      tickCalls.map((t) => ethCall(t.pool, V3_POOL.encodeFunctionData('ticks', [t.tick]), block)),
      signal,
    );
    tickCalls.forEach((t, i) => t.state.liquidityNet.set(t.tick, int128(word(ticks[i], 1))));
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
