/**
 * Follows one node's chain between requests (DESIGN 17): new heads by `eth_subscribe("newHeads")`
 * when `ws_url` is set, else by polling; at each new block the pools recent requests used are read
 * again (the head and their state in one round trip), so a request usually finds the latest
 * block's state already read and computes at that block without asking the node anything.
 * Following stops after a while without requests and resumes with the next one.
 */
import type { RpcCall } from './json-rpc.js';
import { RpcError } from './json-rpc.js';
import type { BlockRef, PoolReader, PoolRef } from './pool-reader.js';
import { HeadSubscription } from './head-subscription.js';

export interface Head {
  block: BlockRef;
  gasPrice: bigint;
  /** When this head's state was read (ms since epoch). */
  at: number;
}

/** Calls at "latest" to go in a head read, and where their answers go (for the block read). */
export interface HeadExtra {
  calls: RpcCall[];
  apply: (results: string[], block: BlockRef) => void;
}

export interface FollowerOptions {
  wsUrl?: string;
  /** Head polling interval without ws_url (ms). */
  pollMs: number;
  /** Stop following after this long without a request (ms). */
  idleMs: number;
  /** With a subscription, a head read longer ago than this is not trusted; the request reads the head itself (ms). */
  staleMs: number;
  chainId: number;
  chainName: string;
  log: (line: string) => void;
  /** Calls to make at "latest" with each head (pool lookups whose answer was "none"), and where to store their answers. */
  watch?: (tag: string) => HeadExtra;
  /** Called after each head is read (the V4 pool index catches up in the background). */
  onHead?: (head: Head) => void;
}

/** Pools not used by any request for this long are no longer refreshed. */
const POOL_TTL_MS = 10 * 60_000;

export class ChainFollower {
  latest: Head | undefined;
  private readonly pools = new Map<string, { ref: PoolRef; used: number }>();
  private step: Promise<Head> | undefined;
  private next: Promise<Head> | undefined;
  private lastRequest = 0;
  private timer: NodeJS.Timeout | undefined;
  private subscription: HeadSubscription | undefined;
  private chainChecked = false;

  constructor(
    private readonly reader: PoolReader,
    private readonly opts: FollowerOptions,
  ) {}

  /**
   * The head to compute at. With a live subscription it is the last pushed head, whose state is
   * usually read already; otherwise the head is read now, with the known pools' state in the
   * same round trip (a head polled earlier may already be a block behind). `extra` (a request's
   * first lookups) rides along when this call starts the read; a caller that joins a read in
   * flight, or gets the pushed head, makes its lookups itself (they are still unanswered).
   */
  async current(signal: AbortSignal, extra?: () => HeadExtra): Promise<Head> {
    this.lastRequest = Date.now();
    this.follow();
    const latest = this.latest;
    if (this.subscription?.live && latest && Date.now() - latest.at < this.opts.staleMs) return latest;
    return abortable(this.step ?? this.start(extra?.()), signal);
  }

  /** Pools a request used: refreshed at each new block from now on. */
  touch(refs: PoolRef[]): void {
    const now = Date.now();
    for (const ref of refs) this.pools.set(ref.address, { ref, used: now });
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.subscription?.close();
    this.subscription = undefined;
  }

  /**
   * The head read in flight (it was sent at most a round trip ago, so its block is as new as any a
   * read started now would see, give or take one) or one started now. Sharing it is what keeps a
   * request to one round trip: queueing a second read behind it made polled builds pay two.
   */
  private fresh(): Promise<Head> {
    return this.step ?? this.start();
  }

  /** A pushed head: read after the read in flight (which may have been sent before that block existed). */
  private afterCurrent(): Promise<Head> {
    if (!this.step) return this.start();
    this.next ??= this.step
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.start();
      });
    return this.next;
  }

  private start(extra?: HeadExtra): Promise<Head> {
    const run = this.read(AbortSignal.timeout(30_000), extra).finally(() => {
      if (this.step === run) this.step = undefined;
    });
    this.step = run;
    return run;
  }

  private async read(signal: AbortSignal, extra?: HeadExtra): Promise<Head> {
    const now = Date.now();
    for (const [k, p] of this.pools) if (now - p.used > POOL_TTL_MS) this.pools.delete(k);
    const pools = [...this.pools.values()].map((p) => p.ref);
    const headCalls: RpcCall[] = [
      { method: 'eth_getBlockByNumber', params: ['latest', false] },
      { method: 'eth_gasPrice', params: [] },
      ...(this.chainChecked ? [] : [{ method: 'eth_chainId', params: [] }]),
    ];
    const watch = this.opts.watch?.('latest');
    const extras = [watch, extra].filter((e): e is HeadExtra => !!e && e.calls.length > 0);
    const read = await this.reader.readAtHead(pools, headCalls, (h) => toBlock(h, this.reader.rpc.url), signal, {
      calls: extras.flatMap((e) => e.calls),
      apply: (results, block) => {
        let k = 0;
        for (const e of extras) e.apply(results.slice(k, (k += e.calls.length)), block);
      },
    });
    if (!this.chainChecked) {
      const id = Number(BigInt(read.head[2] as string));
      if (id !== this.opts.chainId) {
        throw new RpcError(`the RPC node for ${this.opts.chainName} reports chain id ${id}, expected ${this.opts.chainId}`);
      }
      this.chainChecked = true;
    }
    // A block arrived between the head and the state read: read the state at the head's block.
    if (!read.states && pools.length > 0) await this.reader.readStates(pools, read.block, signal);
    const head = { block: read.block, gasPrice: BigInt(read.head[1] as string), at: Date.now() };
    this.latest = head;
    this.opts.onHead?.(head);
    return head;
  }

  private following(): boolean {
    return Date.now() - this.lastRequest < this.opts.idleMs;
  }

  /** Starts (or keeps) following: a subscription when ws_url is set, else a polling timer. */
  private follow(): void {
    if (this.opts.wsUrl) {
      if (!this.subscription) {
        this.subscription = new HeadSubscription(this.opts.wsUrl, {
          onHead: () => {
            if (!this.following()) return this.stop();
            this.afterCurrent().catch(() => {});
          },
          onClose: (why) => {
            this.opts.log(`swap: new-heads subscription to ${safeHost(this.opts.wsUrl!)} closed (${why}); polling until it is back`);
            this.subscription = undefined;
            this.poll();
          },
        });
      }
      return;
    }
    this.poll();
  }

  private poll(): void {
    if (this.timer) return;
    const tick = () => {
      this.timer = undefined;
      if (!this.following()) return;
      this.fresh()
        .catch(() => {})
        .finally(() => {
          if (this.following() && !this.subscription && !this.timer) {
            this.timer = setTimeout(tick, this.opts.pollMs);
            this.timer.unref();
          }
        });
    };
    this.timer = setTimeout(tick, this.opts.pollMs);
    this.timer.unref();
  }
}

/** The shared head read, given up by a caller whose request was cancelled. */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new RpcError('the request was cancelled'));
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new RpcError('the request was cancelled'));
    signal.addEventListener('abort', stop, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the configured node';
  }
}

function toBlock(raw: unknown, url: string): BlockRef {
  const b = raw as { number?: string; hash?: string; timestamp?: string } | null;
  if (!b?.number || !b.hash) throw new RpcError(`the RPC node ${safeHost(url)} returned no latest block`);
  return { tag: b.number, hash: b.hash, timestamp: b.timestamp ? Number(BigInt(b.timestamp)) : undefined };
}
