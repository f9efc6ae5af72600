import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One scripted answer of the fake provider. */
export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** Raw body pieces, written in order (SSE text, or a JSON error body). */
  chunks?: string[];
  /** Pause between chunks. */
  delayMs?: number;
  /** After the chunks: 'end' (default), 'destroy' the socket (mid-stream disconnect), or 'hang' open. */
  then?: 'end' | 'destroy' | 'hang';
}

export interface SeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
  json: any;
}

/** SSE helpers for scripts. */
export const sse = {
  data: (value: unknown) => `data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`,
  event: (name: string, value: unknown) => `event: ${name}\ndata: ${JSON.stringify(value)}\n\n`,
};

/**
 * A tiny local provider for what a mock server cannot produce (protocol quirks, malformed streams,
 * error bodies that echo the key, disconnects, 429 then success). Answers requests in order from a
 * queue of replies; `next` replaces the queue.
 */
export class ScriptedSse {
  readonly seen: SeenRequest[] = [];
  url = '';
  private queue: ScriptedReply[] = [];
  private server: Server | undefined;
  private readonly open = new Set<ServerResponse>();

  static async start(): Promise<ScriptedSse> {
    const s = new ScriptedSse();
    s.server = createServer((req, res) => s.handle(req, res));
    await new Promise<void>((resolve) => s.server!.listen(0, '127.0.0.1', () => resolve()));
    const address = s.server.address();
    s.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return s;
  }

  next(...replies: ScriptedReply[]): void {
    this.queue = replies;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let json: unknown;
      try {
        json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        json = undefined;
      }
      this.seen.push({ path: req.url ?? '/', headers: req.headers, json });
      const reply = this.queue.shift() ?? { status: 500, chunks: ['{"error":{"message":"no scripted reply left"}}'] };
      void this.play(reply, res);
    });
  }

  private async play(reply: ScriptedReply, res: ServerResponse): Promise<void> {
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    const status = reply.status ?? 200;
    res.writeHead(status, { 'content-type': status === 200 ? 'text/event-stream' : 'application/json', ...reply.headers });
    res.flushHeaders();
    for (const chunk of reply.chunks ?? []) {
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
      res.write(chunk);
    }
    if (reply.then === 'destroy') res.socket?.destroy();
    else if (reply.then !== 'hang') res.end();
  }

  stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
