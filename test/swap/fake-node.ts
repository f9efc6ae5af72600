import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Call {
  method: string;
  params: unknown[];
}

/** A JSON-RPC node stand-in: `answer` decides each call's result or error. */
export class FakeNode {
  calls: Call[] = [];
  answer: (c: Call) => { result?: unknown; error?: { code: number; message: string } } = () => ({ result: '0x0' });
  url = '';
  private server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const batch = JSON.parse(body) as (Call & { id: number })[];
      const out = batch.map((c) => {
        this.calls.push(c);
        return { jsonrpc: '2.0', id: c.id, ...this.answer(c) };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    });
  });
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
