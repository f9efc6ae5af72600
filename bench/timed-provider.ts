/**
 * A chat-completions provider for the chat page's figures: streams `r<round>t<i> ` chunks at a fixed
 * interval and notes when each was written (epoch ms, performance.timeOrigin + now(), the same
 * clock the page reads), so the page's paint time can be set against it.
 */
import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface TimedStream {
  chunks: number;
  intervalMs: number;
  /** Chunk i is `r<round>t<i> `: a round's markers never match text an earlier round left on the page. */
  round: number;
}

export class TimedProvider {
  url = '';
  /** Epoch ms at which chunk i of the latest stream was written. */
  sentAt: number[] = [];
  private server: Server | undefined;
  private plan: TimedStream = { chunks: 20, intervalMs: 50, round: 0 };

  static async start(): Promise<TimedProvider> {
    const p = new TimedProvider();
    p.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (!req.url?.endsWith('/chat/completions')) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const { chunks, intervalMs, round } = p.plan;
        p.sentAt = [];
        const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
          `data: ${JSON.stringify({ id: 'c1', model: 'm1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        let i = 0;
        const tick = () => {
          if (i < chunks) {
            res.write(chunk({ content: `r${round}t${i} ` }));
            p.sentAt[i] = performance.timeOrigin + performance.now();
            i += 1;
            setTimeout(tick, intervalMs);
            return;
          }
          res.write(chunk({}, 'stop'));
          res.write(`data: ${JSON.stringify({ id: 'c1', choices: [], usage: { prompt_tokens: 1000, completion_tokens: chunks } })}\n\n`);
          res.end('data: [DONE]\n\n');
        };
        tick();
      });
    });
    await new Promise<void>((resolve) => p.server!.listen(0, '127.0.0.1', () => resolve()));
    const address = p.server.address();
    p.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return p;
  }

  next(plan: TimedStream): void {
    this.plan = plan;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
