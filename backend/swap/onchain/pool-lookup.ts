/**
 * Finds pools by asking where they must be: V2/V3 factories (getPair / getPool) and, for V4,
 * the PoolManager's state at the PoolId of a hookless key (an initialized pool has a non-zero
 * price), so no log history is needed. A found pool is kept for good (pools do not move); a
 * "no pool" answer holds only for the block it was read at, and is asked again at each new block
 * in the same round trip as the head (see `watchRound`), so a request rarely waits on it.
 */
import type { RpcCall } from './json-rpc.js';
import type { MulticallClient } from './multicall.js';
import { V2_FACTORY, V3_FACTORY } from './pool-abi.js';
import type { BlockRef, PoolRef } from './pool-types.js';
import type { SourceName } from '../swap-api.js';
import { decodeWords, extsloadCall, poolStateSlot, slot0Key } from './v4-state.js';

const ZERO = '0x0000000000000000000000000000000000000000';
/** Absent answers re-asked at each block only while requests keep needing them. */
const WATCH_TTL_MS = 10 * 60_000;

export interface FactoryQuery {
  source: SourceName;
  kind: 'v2' | 'v3' | 'v4';
  /** V2/V3: the factory; V4: the PoolManager. */
  factory: string;
  tokenA: string;
  tokenB: string;
  fee: number;
  /** V4: the key (zero address = native) and its PoolId. */
  v4?: { id: string; currency0: string; currency1: string; tickSpacing: number };
}

const lower = (a: string) => a.toLowerCase();
const numberOf = (block: BlockRef) => Number(BigInt(block.tag));
export const sortTokens = (a: string, b: string): [string, string] => (BigInt(a) < BigInt(b) ? [lower(a), lower(b)] : [lower(b), lower(a)]);

function queryKey(q: FactoryQuery): string {
  if (q.v4) return `v4:${q.v4.id}`;
  const [a, b] = sortTokens(q.tokenA, q.tokenB);
  return `${lower(q.factory)}:${a}:${b}:${q.fee}`;
}

/** Call data per query: the same lookups are asked again at every block while they find no pool. */
const queryData = new Map<string, { to: string; data: string }>();

function queryCall(q: FactoryQuery, tag: string): RpcCall {
  const key = `${q.factory}:${queryKey(q)}`;
  let call = queryData.get(key);
  if (!call) {
    if (q.v4) call = extsloadCall(q.factory, [slot0Key(poolStateSlot(q.v4.id))], 'latest').params[0] as { to: string; data: string };
    else {
      const [a, b] = sortTokens(q.tokenA, q.tokenB);
      const data =
        q.kind === 'v2' ? V2_FACTORY.encodeFunctionData('getPair', [a, b]) : V3_FACTORY.encodeFunctionData('getPool', [a, b, q.fee]);
      call = { to: q.factory, data };
    }
    if (queryData.size >= 100_000) queryData.clear();
    queryData.set(key, call);
  }
  return { method: 'eth_call', params: [call, tag] };
}

/** The pool's address (PoolId for V4), or null when there is none. */
function answerOf(q: FactoryQuery, result: string): string | null {
  if (q.v4) return (decodeWords(result)[0] & ((1n << 160n) - 1n)) === 0n ? null : q.v4.id;
  const addr = lower(`0x${result.slice(-40)}`);
  return addr === ZERO ? null : addr;
}

export class PoolLookup {
  /** `block`: the number the answer was read at; "no pool" then holds for that block and every earlier one (pools are never removed). */
  private readonly answers = new Map<string, { address: string | null; block: number }>();
  /** Queries whose last answer was "no pool", with when a request last needed them. */
  private readonly watched = new Map<string, { q: FactoryQuery; used: number }>();

  constructor(private readonly rpc: MulticallClient) {}

  /** Pools for the queries (none where there is no pool at `block`). */
  async discover(queries: FactoryQuery[], block: BlockRef, signal: AbortSignal): Promise<PoolRef[]> {
    const now = Date.now();
    const unknown = queries.filter((q) => {
      const hit = this.answers.get(queryKey(q));
      return hit === undefined || (hit.address === null && hit.block < numberOf(block));
    });
    const results = await this.rpc.batch<string>(
      unknown.map((q) => queryCall(q, block.tag)),
      signal,
    );
    unknown.forEach((q, i) => this.answers.set(queryKey(q), { address: answerOf(q, results[i]), block: numberOf(block) }));
    const refs: PoolRef[] = [];
    for (const q of queries) {
      const key = queryKey(q);
      const address = this.answers.get(key)?.address;
      if (!address) {
        this.watched.set(key, { q, used: now });
        continue;
      }
      this.watched.delete(key);
      refs.push(refOf(q, address));
    }
    return refs;
  }

  /**
   * Calls asking, at `tag`, the queries never asked before (a request's new pairs), to go in the
   * head's round trip; `apply` stores the answers for the block read, as discover() would.
   */
  unaskedRound(queries: FactoryQuery[], tag: string): { calls: RpcCall[]; apply: (results: string[], block: BlockRef) => void } {
    const list = [...new Map(queries.filter((q) => !this.answers.has(queryKey(q))).map((q) => [queryKey(q), q]))];
    return {
      calls: list.map(([, q]) => queryCall(q, tag)),
      apply: (results, block) =>
        list.forEach(([k, q], i) => this.answers.set(k, { address: answerOf(q, results[i]), block: numberOf(block) })),
    };
  }

  /** Calls asking again, at `tag`, every watched "no pool" answer; `apply` stores them for the block read. */
  watchRound(tag: string): { calls: RpcCall[]; apply: (results: string[], block: BlockRef) => void } {
    const now = Date.now();
    for (const [k, w] of this.watched) if (now - w.used > WATCH_TTL_MS) this.watched.delete(k);
    const list = [...this.watched.entries()];
    return {
      calls: list.map(([, w]) => queryCall(w.q, tag)),
      apply: (results, block) =>
        list.forEach(([k, w], i) => this.answers.set(k, { address: answerOf(w.q, results[i]), block: numberOf(block) })),
    };
  }
}

function refOf(q: FactoryQuery, address: string): PoolRef {
  const [token0, token1] = sortTokens(q.tokenA, q.tokenB);
  if (q.kind !== 'v4' || !q.v4) return { source: q.source, kind: q.kind, address, token0, token1, fee: q.fee };
  // V4: tokenA/tokenB are the key's currencies in order, the wrapped token standing in for native.
  return {
    source: q.source,
    kind: 'v4',
    address,
    token0: lower(q.tokenA),
    token1: lower(q.tokenB),
    fee: q.fee,
    v4: { manager: lower(q.factory), currency0: q.v4.currency0, currency1: q.v4.currency1, tickSpacing: q.v4.tickSpacing },
  };
}
