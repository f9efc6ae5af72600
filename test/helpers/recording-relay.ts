import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as the client sent it. */
  raw: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
  at: number;
}

/**
 * A recording relay: forwards every request unchanged to `target` and streams the answer back
 * chunk by chunk, keeping each raw request. Point a provider's base_url at it to assert what a
 * client really sent (thinking parameters, cache_control, tool results per protocol).
 */
export class RecordingRelay {
  readonly requests: RecordedRequest[] = [];
  url = '';
  private server: Server | undefined;

  constructor(private readonly target: string) {}

  static async start(target: string): Promise<RecordingRelay> {
    const relay = new RecordingRelay(target);
    await relay.listen();
    return relay;
  }

  private listen(): Promise<void> {
    const target = new URL(this.target);
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          json = undefined;
        }
        this.requests.push({
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          headers: req.headers,
          raw: raw.toString('utf8'),
          json,
          at: Date.now(),
        });
        const upstream = request(
          { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        res.on('close', () => upstream.destroy());
        upstream.end(raw);
      });
    });
    return new Promise((resolve) => {
      this.server!.listen(0, '127.0.0.1', () => {
        const address = this.server!.address();
        this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
        resolve();
      });
    });
  }

  /** Recorded requests whose path contains `fragment`. */
  to(fragment: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path.includes(fragment));
  }

  last(fragment = ''): RecordedRequest {
    const list = this.to(fragment);
    if (list.length === 0) throw new Error(`no request to ${fragment} recorded`);
    return list[list.length - 1];
  }

  clear(): void {
    this.requests.length = 0;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
