/**
 * The baseline of the startup, memory and throughput figures: a bare node:http server that does
 * what the backend's fast path does (GET /health, GET /api/config/providers with a fixed JSON body)
 * and nothing else. Run as `node dist/bench/bare-server.js [body-file]`; prints the same
 * `listening on` line as the backend.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const providers = process.argv[2] ? readFileSync(process.argv[2]) : Buffer.from('{"providers":[],"defaults":null}');
const health = Buffer.from('{"status":"ok"}');

function send(res: import('node:http').ServerResponse, status: number, body: Buffer): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') return send(res, 200, health);
  if (req.method === 'GET' && req.url === '/api/config/providers') return send(res, 200, providers);
  send(res, 404, Buffer.from('{"error":{"code":"not_found","message":"Not found."}}'));
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
