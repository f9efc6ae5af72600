/**
 * State reads through Multicall3 (`aggregate3`, allow-failure): the eth_calls of one batch that read
 * at the same block become a few eth_calls to Multicall3, so a hosted node's batch cap (often 20
 * to 100 calls) is no longer the number of pools. Calls at "latest" carry Multicall3's own
 * getBlockNumber() so the caller learns which block the node really read them at. Without
 * Multicall3 on the node (its address has no code) the calls go out as a plain batch.
 */
import { decodeAggregate3, encodeAggregate3 } from './aggregate3-codec.js';
import { RpcError, type JsonRpcClient, type RpcCall } from './json-rpc.js';

export const MULTICALL3 = '0xca11bde05977b3631167028862be2a173976ca11';
const GET_BLOCK_NUMBER = '0x42cbb15c';
/** Sub-calls per aggregate3: a few hundred pool reads stay far below any eth_call gas cap. */
const PER_AGGREGATE = 150;

interface Plain {
  to: string;
  data: string;
}

function isStateCall(c: RpcCall): c is RpcCall & { params: [Plain, string] } {
  if (c.method !== 'eth_call' || c.params.length !== 2 || typeof c.params[1] !== 'string') return false;
  const p = c.params[0] as Record<string, unknown>;
  return typeof p === 'object' && p !== null && Object.keys(p).every((k) => k === 'to' || k === 'data');
}

export interface BatchAnswer<T> {
  results: T[];
  /** Block numbers Multicall3 reported for the calls sent at "latest" (empty when none). */
  latestBlocks: number[];
}

export class MulticallClient {
  /** False once the node showed it has no Multicall3 (remembered). */
  private available = true;

  constructor(readonly rpc: JsonRpcClient) {}

  get url(): string {
    return this.rpc.url;
  }

  async batch<T = unknown>(calls: RpcCall[], signal?: AbortSignal): Promise<T[]> {
    return (await this.batchAt<T>(calls, signal)).results;
  }

  /** Like JsonRpcClient.batch, with eth_calls folded into aggregate3 calls per block tag. */
  async batchAt<T = unknown>(calls: RpcCall[], signal?: AbortSignal): Promise<BatchAnswer<T>> {
    const state = calls.map((c, i) => ({ c, i })).filter(({ c }) => isStateCall(c));
    if (!this.available || state.length < 2) return { results: await this.rpc.batch<T>(calls, signal), latestBlocks: [] };
    const plain = calls.map((c, i) => ({ c, i })).filter(({ c }) => !isStateCall(c));
    const groups: { tag: string; items: { c: RpcCall & { params: [Plain, string] }; i: number }[] }[] = [];
    const byTag = new Map<string, typeof groups>();
    for (const item of state as { c: RpcCall & { params: [Plain, string] }; i: number }[]) {
      const tag = item.c.params[1];
      const list = byTag.get(tag) ?? [];
      byTag.set(tag, list);
      let g = list[list.length - 1];
      if (!g || g.items.length >= PER_AGGREGATE) {
        g = { tag, items: [] };
        list.push(g);
        groups.push(g);
      }
      g.items.push(item);
    }
    const aggregateCalls: RpcCall[] = groups.map((g) => {
      const sub = g.items.map(({ c }) => ({ target: c.params[0].to, allowFailure: true, callData: c.params[0].data }));
      if (g.tag === 'latest') sub.unshift({ target: MULTICALL3, allowFailure: false, callData: GET_BLOCK_NUMBER });
      const data = encodeAggregate3(sub);
      return { method: 'eth_call', params: [{ to: MULTICALL3, data }, g.tag] };
    });
    const answers = await this.rpc.batch<unknown>([...plain.map((p) => p.c), ...aggregateCalls], signal);
    const out = new Array<T>(calls.length);
    plain.forEach((p, k) => (out[p.i] = answers[k] as T));
    const latestBlocks: number[] = [];
    for (let gi = 0; gi < groups.length; gi++) {
      const raw = answers[plain.length + gi] as string;
      if (raw === '0x') {
        // No code at the canonical address: this node has no Multicall3.
        this.available = false;
        return { results: await this.rpc.batch<T>(calls, signal), latestBlocks: [] };
      }
      const g = groups[gi];
      const results = this.decode(raw, g.items.length + (g.tag === 'latest' ? 1 : 0));
      let offset = 0;
      if (g.tag === 'latest') {
        latestBlocks.push(Number(BigInt(results[0][1])));
        offset = 1;
      }
      g.items.forEach(({ c, i }, k) => {
        const [ok, data] = results[k + offset];
        if (!ok && c.optional) return void (out[i] = '0x' as T);
        if (!ok) throw new RpcError(`the RPC node ${this.describe()} failed eth_call to ${c.params[0].to}: execution reverted`);
        out[i] = data as T;
      });
    }
    return { results: out, latestBlocks };
  }

  private decode(raw: string, expected: number): [boolean, string][] {
    let results: [boolean, string][];
    try {
      results = decodeAggregate3(raw);
    } catch (err) {
      throw new RpcError(`the RPC node ${this.describe()} answered Multicall3 with a malformed result: ${(err as Error).message}`);
    }
    if (results.length !== expected)
      throw new RpcError(`the RPC node ${this.describe()} answered Multicall3 with ${results.length} results for ${expected} calls`);
    return results;
  }

  private describe(): string {
    try {
      return new URL(this.rpc.url).host;
    } catch {
      return 'the configured node';
    }
  }
}
