import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AbiCoder } from 'ethers';

interface Call {
  id: number;
  method: string;
  params?: [{ to?: string; data?: string }, string?];
}

/** `eth_call:<to>@<block>`, and for a Multicall3 aggregate3 the selectors of its sub-calls with their counts. */
function describeCall(c: Call): string {
  if (c.method !== 'eth_call') return c.method;
  const [tx, tag] = c.params ?? [{}];
  const head = `eth_call:${tx.to?.slice(0, 8)}@${tag}`;
  if (!tx.data?.startsWith('0x82ad56cb')) return head;
  try {
    const [subs] = AbiCoder.defaultAbiCoder().decode(['(address,bool,bytes)[]'], `0x${tx.data.slice(10)}`) as unknown as [
      [string, boolean, string][],
    ];
    const counts = new Map<string, number>();
    for (const [, , data] of subs) counts.set(data.slice(0, 10), (counts.get(data.slice(0, 10)) ?? 0) + 1);
    return `${head}[${[...counts].map(([k, v]) => `${k}×${v}`).join(',')}]`;
  } catch {
    return head;
  }
}

export interface ProxyOptions {
  /** Added before forwarding each request (half a round trip each way, in effect). */
  latencyMs?: number;
  /** Batches above this many calls are refused the way real nodes do. */
  maxBatch?: number;
  /** How the refusal looks: geth's single -32600 "batch too large" object, or HTTP 413. */
  refusal?: 'geth' | 'http413';
  /** Every n-th request is answered 429 with `Retry-After: retryAfter` (seconds). */
  rateLimitEvery?: number;
  retryAfter?: string;
}

/**
 * A JSON-RPC proxy in front of a real node (anvil) that behaves like a hosted one: latency,
 * a batch cap with the error shapes real nodes use, 429 now and then. It counts what it saw.
 */
export class RpcProxy {
  url = '';
  /** HTTP requests received (each one a round trip for the client). */
  requests = 0;
  /** HTTP requests answered: equal to `requests` when none is in flight. */
  answered = 0;
  refusedBatches = 0;
  rateLimited = 0;
  /** eth_call / eth_getLogs etc. received, by method. */
  methods = new Map<string, number>();
  /** Each request's calls (described on first look: decoding costs the bench's time) with when it arrived and was answered (ms, performance.now()). */
  timeline: { readonly calls: string[]; start: number; end: number }[] = [];
  /** Requests waiting at the gate (see hold()). */
  held = 0;
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  private server: http.Server;

  constructor(
    private readonly upstream: string,
    public options: ProxyOptions = {},
  ) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        this.handle(Buffer.concat(chunks).toString(), res)
          .catch((err) => {
            res.writeHead(502, { 'content-type': 'text/plain' });
            res.end(String(err));
          })
          .finally(() => this.answered++);
      });
    });
  }

  private async handle(body: string, res: http.ServerResponse): Promise<void> {
    this.requests++;
    const n = this.requests;
    const parsed = JSON.parse(body) as Call[] | Call;
    const list = Array.isArray(parsed) ? parsed : [parsed];
    for (const c of list) this.methods.set(c.method, (this.methods.get(c.method) ?? 0) + 1);
    let described: string[] | undefined;
    const entry = {
      get calls() {
        return (described ??= list.map(describeCall));
      },
      start: performance.now(),
      end: Number.POSITIVE_INFINITY,
    };
    this.timeline.push(entry);
    res.on('finish', () => (entry.end = performance.now()));
    const o = this.options;
    if (o.latencyMs) await new Promise((r) => setTimeout(r, o.latencyMs));
    if (this.gate) {
      this.held++;
      await this.gate;
      this.held--;
    }
    if (o.rateLimitEvery && n % o.rateLimitEvery === 0) {
      this.rateLimited++;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': o.retryAfter ?? '0' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'rate limit exceeded' } }));
      return;
    }
    if (o.maxBatch && Array.isArray(parsed) && parsed.length > o.maxBatch) {
      this.refusedBatches++;
      if (o.refusal === 'http413') {
        res.writeHead(413, { 'content-type': 'text/plain' });
        res.end('request entity too large: batch');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: parsed[0].id, error: { code: -32600, message: 'batch too large' } }));
      }
      return;
    }
    const upstream = await fetch(this.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await upstream.text();
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(text);
  }

  /**
   * Sequential round trips among the requests from `from` on that `keep` accepts: the longest
   * chain of requests each sent after the previous one was answered (parallel requests overlap);
   * with `until`, only requests answered by then.
   */
  rounds(from = 0, keep: (calls: string[]) => boolean = () => true, until = Number.POSITIVE_INFINITY): number {
    const list = this.timeline.slice(from).filter((e) => e.end <= until && keep(e.calls));
    const depth: number[] = [];
    list.forEach((e, i) => {
      let d = 1;
      for (let j = 0; j < i; j++) if (list[j].end <= e.start) d = Math.max(d, depth[j] + 1);
      depth.push(d);
    });
    return Math.max(0, ...depth);
  }

  /** From now on requests wait (counted in `held`) until release(): a request kept in flight on purpose. */
  hold(): void {
    this.gate ??= new Promise<void>((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate?.();
    this.gate = undefined;
  }

  /** The calls of each request, in arrival order (for messages when a count is off). */
  get log(): string[][] {
    return this.timeline.map((e) => e.calls);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
