/**
 * Second reference of the throughput figure: the smallest express 5 app answering the same JSON
 * (no guards, no credential, no access log). It shows how much of the gap to bare node:http is
 * the framework itself. Run as `node dist/bench/express-baseline.js <body-file>`.
 */
import { readFileSync } from 'node:fs';
import express from 'express';

const body: unknown = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8'));
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/health', (_req, res) => {
  res.json({ status: 'ok' });
});
app.get('/api/config/providers', (_req, res) => {
  res.json(body);
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
server.keepAliveTimeout = 5000;
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
