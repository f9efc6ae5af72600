import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Call {
  id: number;
  method: string;
  params?: [{ to?: string }, string?];
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
  /** The methods of each request, in arrival order (for messages when a count is off). */
  log: string[][] = [];
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
    const o = this.options;
    if (o.latencyMs) await new Promise((r) => setTimeout(r, o.latencyMs));
    const parsed = JSON.parse(body) as Call[] | Call;
    const list = Array.isArray(parsed) ? parsed : [parsed];
    for (const c of list) this.methods.set(c.method, (this.methods.get(c.method) ?? 0) + 1);
    this.log.push(list.map((c) => (c.method === 'eth_call' ? `eth_call:${c.params?.[0]?.to?.slice(0, 8)}@${c.params?.[1]}` : c.method)));
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
