/**
 * The baselines of the startup, memory and throughput figures, as their own processes:
 *   node dist/bench/baseline-server.js bare [body-file]     a bare node:http server
 *   node dist/bench/baseline-server.js express <body-file>  the smallest express 5 app
 * Both answer GET /health and GET /api/config/providers (the given JSON) and nothing else, and
 * print the backend's `listening on` line. The express one shows how much of the gap to bare
 * node:http is the framework itself (no guards, no credential, no access log).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';

const [mode, bodyFile] = process.argv.slice(2);
const providers = bodyFile ? readFileSync(bodyFile) : Buffer.from('{"providers":[],"defaults":null}');
const health = Buffer.from('{"status":"ok"}');

function send(res: ServerResponse, status: number, body: Buffer): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
}

function bare(): Server {
  return createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health') return send(res, 200, health);
    if (req.method === 'GET' && req.url === '/api/config/providers') return send(res, 200, providers);
    send(res, 404, Buffer.from('{"error":{"code":"not_found","message":"Not found."}}'));
  });
}

async function minimalExpress(): Promise<Server> {
  // Imported only in this mode: the bare baseline's start and memory must not include express.
  const { default: express } = await import('express');
  const body: unknown = JSON.parse(providers.toString('utf8'));
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/api/config/providers', (_req, res) => {
    res.json(body);
  });
  return createServer(app);
}

if (mode !== 'bare' && mode !== 'express') {
  process.stderr.write('usage: baseline-server.js bare|express [body-file]\n');
  process.exit(2);
}
const server = mode === 'bare' ? bare() : await minimalExpress();
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
