import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../data/atomic-write.js';
import type { JsonRpcClient, RpcCall } from './json-rpc.js';

/** `Initialize(bytes32 indexed id, address indexed currency0, address indexed currency1, uint24 fee, int24 tickSpacing, address hooks, uint160 sqrtPriceX96, int24 tick)` */
export const INITIALIZE_TOPIC = '0xdd466e674ea557f56295e2d0218a125ea4b4f0f6f3307b95f85e6110838d6438';
/** A checkpoint that no longer matches the chain rewinds this many blocks before re-reading. */
const REORG_DEPTH = 64;
const CHUNKS_PER_BATCH = 20;
/** The index on disk is rewritten at most this often while only its checkpoint moves. */
const SAVE_EVERY_MS = 30_000;

export interface V4PoolInfo {
  id: string;
  /** Lower-case; the zero address is native. */
  currency0: string;
  currency1: string;
  fee: number;
  tickSpacing: number;
  hooks: string;
  block: number;
}

interface RawLog {
  topics: string[];
  data: string;
  blockNumber: string;
  removed?: boolean;
}

const topicAddress = (t: string) => `0x${t.slice(26)}`.toLowerCase();
const dataWord = (data: string, i: number) => BigInt(`0x${data.slice(2 + i * 64, 2 + (i + 1) * 64)}`);

export function parseInitialize(log: RawLog): V4PoolInfo {
  return {
    id: log.topics[1].toLowerCase(),
    currency0: topicAddress(log.topics[2]),
    currency1: topicAddress(log.topics[3]),
    fee: Number(dataWord(log.data, 0)),
    tickSpacing: Number(BigInt.asIntN(24, dataWord(log.data, 1))),
    hooks: `0x${dataWord(log.data, 2).toString(16).padStart(40, '0')}`,
    block: Number(BigInt(log.blockNumber)),
  };
}

/**
 * Every pool one PoolManager has initialized, from its `Initialize` logs, indexed incrementally:
 * each call reads only the blocks after the last one seen. The last block's hash is checked on the
 * next call (in the same JSON-RPC batch as the new logs); when the chain no longer has it (a reorg,
 * or a test's evm_revert reusing the number) the index rewinds REORG_DEPTH blocks and reads again.
 */
export class V4PoolIndex {
  private pools: V4PoolInfo[] = [];
  private checkpoint: { number: number; hash: string } | undefined;
  private running: Promise<V4PoolInfo[]> = Promise.resolve([]);
  private savedAt = 0;
  private savedCount = 0;

  /**
   * `file`: where the index is kept between runs (data directory). It is loaded here; its
   * checkpoint's hash is checked against the chain on the first sync, so a reorg while the
   * backend was stopped rewinds instead of keeping pools of a replaced block.
   */
  constructor(
    private readonly rpc: JsonRpcClient,
    readonly manager: string,
    private readonly fromBlock: number,
    private readonly logRange: number,
    private readonly file?: string,
  ) {
    if (!file) return;
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as {
        manager?: string;
        fromBlock?: number;
        checkpoint?: { number: number; hash: string };
        pools?: V4PoolInfo[];
      };
      if (saved.manager === manager && saved.fromBlock === fromBlock && saved.checkpoint && Array.isArray(saved.pools)) {
        this.checkpoint = saved.checkpoint;
        this.pools = saved.pools;
        this.savedCount = saved.pools.length;
        this.savedAt = Date.now();
      }
    } catch {
      // No index yet (or unreadable): start from from_block in the background.
    }
  }

  /** The pools indexed so far (without waiting for a sync). */
  get known(): V4PoolInfo[] {
    return this.pools;
  }

  private async save(): Promise<void> {
    if (!this.file || !this.checkpoint) return;
    if (this.pools.length === this.savedCount && Date.now() - this.savedAt < SAVE_EVERY_MS) return;
    this.savedAt = Date.now();
    this.savedCount = this.pools.length;
    const body = { manager: this.manager, fromBlock: this.fromBlock, checkpoint: this.checkpoint, pools: this.pools };
    await writeFileAtomic(this.file, JSON.stringify(body)).catch(() => {});
  }

  /** The pools as of `head`; concurrent callers share one update. */
  sync(head: { number: number; hash: string }, signal: AbortSignal): Promise<V4PoolInfo[]> {
    this.running = this.running.catch(() => []).then(() => this.update(head, signal));
    return this.running;
  }

  private async update(head: { number: number; hash: string }, signal: AbortSignal): Promise<V4PoolInfo[]> {
    if (this.checkpoint?.hash === head.hash) return this.pools;
    const cp = this.checkpoint;
    let from = this.fromBlock;
    let verify: RpcCall | undefined;
    if (cp && cp.number <= head.number) {
      from = cp.number + 1;
      // The checkpoint's hash is checked in the same batch as the new logs (no extra round trip).
      verify = { method: 'eth_getBlockByNumber', params: [`0x${cp.number.toString(16)}`, false] };
    } else if (cp) {
      from = this.rewind(cp.number, head.number);
    }
    let read = await this.readLogs(from, head.number, verify, signal);
    if (cp && verify && read.checkHash !== cp.hash) {
      read = await this.readLogs(this.rewind(cp.number, head.number), head.number, undefined, signal);
    }
    const known = new Set(this.pools.map((p) => p.id));
    this.pools = [...this.pools, ...read.found.filter((p) => !known.has(p.id))];
    this.checkpoint = { number: head.number, hash: head.hash };
    await this.save();
    return this.pools;
  }

  /** The chain no longer has the checkpoint: forget the last REORG_DEPTH blocks and read them again. */
  private rewind(checkpoint: number, head: number): number {
    const from = Math.max(this.fromBlock, Math.min(checkpoint, head) - REORG_DEPTH);
    this.pools = this.pools.filter((p) => p.block < from);
    return from;
  }

  private async readLogs(
    from: number,
    to: number,
    verify: RpcCall | undefined,
    signal: AbortSignal,
  ): Promise<{ found: V4PoolInfo[]; checkHash?: string }> {
    const found: V4PoolInfo[] = [];
    let checkHash: string | undefined;
    let first = true;
    for (let start = from; start <= to || (first && verify); first = false) {
      const calls: RpcCall[] = first && verify ? [verify] : [];
      for (let k = 0; k < CHUNKS_PER_BATCH && start <= to; k++) {
        const end = Math.min(to, start + this.logRange - 1);
        calls.push({
          method: 'eth_getLogs',
          params: [
            { address: this.manager, topics: [INITIALIZE_TOPIC], fromBlock: `0x${start.toString(16)}`, toBlock: `0x${end.toString(16)}` },
          ],
        });
        start = end + 1;
      }
      const answers = await this.rpc.batch<unknown>(calls, signal);
      if (first && verify) checkHash = (answers.shift() as { hash?: string } | null)?.hash;
      for (const logs of answers as RawLog[][]) {
        for (const log of logs) if (!log.removed && log.topics.length === 4) found.push(parseInitialize(log));
      }
    }
    return { found, checkHash };
  }
}
