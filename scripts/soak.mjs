#!/usr/bin/env node
// Load and soak: 100 WebSocket clients plus sustained protected-API and route-build traffic
// against the real built backend on loopback. Usage: npm run soak [-- seconds]
// Prints p99 latencies, errors, RSS before/after and per-client event delivery; exits 1 on any error.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import WebSocket from 'ws';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { FakeAggregator, answer, json } = await import(path.join(root, 'dist/test/swap/fake-aggregator.js'));
const { swapYaml } = await import(path.join(root, 'dist/test/swap/swap-yaml-fixture.js'));

const SECONDS = Number(process.argv[2] ?? process.env.SOAK_SECONDS ?? 60);
const CLIENTS = 100;
const USDT = '0x55d398326f99059fF775485246999027B3197955';
const USDC = '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d';

const agg = new FakeAggregator();
await agg.start();
agg.reply = (url, res) => {
  const amountIn = BigInt(url.searchParams.get('amountIn') ?? '1');
  json(
    res,
    200,
    answer(USDT, USDC, amountIn, [
      [
        {
          pool: '0x16b9a82891338f9ba80e2d6970fdda79d1eb0dae',
          tokenIn: USDT.toLowerCase(),
          tokenOut: USDC.toLowerCase(),
          swapAmount: amountIn.toString(),
          amountOut: ((amountIn * 99n) / 100n).toString(),
          exchange: 'pancake',
          poolType: 'pancake',
        },
      ],
    ]),
  );
};

const base = mkdtempSync(path.join(os.tmpdir(), 'svc-soak-'));
const dataDir = path.join(base, 'data');
mkdirSync(dataDir, { mode: 0o700 });
writeFileSync(path.join(dataDir, 'swap.yaml'), swapYaml(agg.url));
const child = spawn(process.execPath, [path.join(root, 'dist/backend/main.js'), '-port', '0', '-swap-port', '0', '-data', dataDir], {
  env: { ...process.env, EXPRESS_MODE: 'release' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const output = [];
const ready = new Promise((resolve, reject) => {
  const found = {};
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    for (const line of chunk.split('\n')) {
      output.push(line);
      let m;
      if ((m = /^listening on http:\/\/127\.0\.0\.1:(\d+)$/.exec(line))) found.port = Number(m[1]);
      if ((m = /^swap builder listening on http:\/\/127\.0\.0\.1:(\d+)$/.exec(line))) found.swapPort = Number(m[1]);
      if ((m = /^pairing code: (\d{6})/.exec(line))) found.code = m[1];
      if (found.port && found.swapPort && found.code) resolve(found);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => output.push(...chunk.split('\n')));
  child.on('exit', (code) => reject(new Error(`backend exited ${code}:\n${output.join('\n')}`)));
});
const { port, swapPort, code } = await ready;
const api = `http://127.0.0.1:${port}`;

const claim = await fetch(`${api}/api/pairing/claim`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ pairing_code: code }),
});
const { credential } = await claim.json();
const auth = { authorization: `Bearer ${credential}` };

const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;

// 100 WebSocket clients, each counting the config.changed events it receives.
const clients = await Promise.all(
  Array.from(
    { length: CLIENTS },
    () =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?service_credential=${credential}`);
        const client = { socket, events: 0, closed: false };
        socket.on('message', (data) => {
          const msg = JSON.parse(String(data));
          if (msg.type === 'config.changed' && msg.resource === 'profiles') client.events += 1;
        });
        socket.on('close', () => (client.closed = true));
        socket.on('open', () => resolve(client));
        socket.on('error', reject);
      }),
  ),
);

// Warm up, then the baseline RSS.
await fetch(`${api}/api/config/providers`, { headers: auth });
const rssBefore = rss();
console.log(`soak: ${SECONDS} s, ${CLIENTS} WebSocket clients, backend pid ${child.pid}, RSS before ${rssBefore.toFixed(1)} MiB`);

// Writes that every client must hear about: one profile update at a time, counted exactly.
// RSS every 10 s: a plateau is heap warm-up, a steady climb would be a leak.
const rssSamples = [];
const sampler = setInterval(() => rssSamples.push(Number(rss().toFixed(1))), 10_000);
let writes = 0;
let writeErrors = 0;
let writing = true;
const writer = (async () => {
  for (let i = 0; writing; i++) {
    const r = await fetch(`${api}/api/profiles/soak`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ timeout_seconds: 60 + (i % 1000) }),
    });
    await r.arrayBuffer();
    if (r.ok) writes += 1;
    else writeErrors += 1;
    await new Promise((res) => setTimeout(res, 50));
  }
})();

const buildBody = JSON.stringify({
  chain: 'bsc',
  tokenIn: USDT,
  tokenOut: USDC,
  amountIn: '1000000000000000000',
  sender: '0x1111111111111111111111111111111111111111',
  deadline: Math.floor(Date.now() / 1000) + SECONDS + 600,
});
const probe = await fetch(`http://127.0.0.1:${swapPort}/api/v1/route/build`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: buildBody,
});
if (probe.status !== 200) throw new Error(`route build probe: ${probe.status} ${await probe.text()}`);

let firstFailure = '';
const run = (opts) =>
  new Promise((resolve, reject) => autocannon({ duration: SECONDS, ...opts }, (err, result) => (err ? reject(err) : resolve(result))));
const [apiResult, swapResult] = await Promise.all([
  run({
    url: api,
    connections: 8,
    headers: auth,
    requests: [
      { method: 'GET', path: '/api/config/providers' },
      { method: 'GET', path: '/api/profiles' },
      { method: 'GET', path: '/api/workspaces' },
      { method: 'GET', path: '/api/logs?since=0' },
    ],
  }),
  run({
    url: `http://127.0.0.1:${swapPort}`,
    connections: 8,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/route/build',
        headers: { 'content-type': 'application/json' },
        body: buildBody,
        onResponse: (status, body) => {
          if (status !== 200 && !firstFailure) firstFailure = `${status} ${body}`;
        },
      },
    ],
  }),
]);
writing = false;
clearInterval(sampler);
await writer;
// Let the last broadcast reach every socket.
await new Promise((res) => setTimeout(res, 500));
const rssAfter = rss();

const delivered = clients.map((c) => c.events);
const summary = (r) => ({
  requests: r.requests.total,
  rps: Math.round(r.requests.average),
  p50_ms: r.latency.p50,
  p99_ms: r.latency.p99,
  max_ms: r.latency.max,
  errors: r.errors,
  timeouts: r.timeouts,
  non2xx: r.non2xx,
});
const report = {
  seconds: SECONDS,
  protected_api: summary(apiResult),
  route_build: summary(swapResult),
  websocket: {
    clients: CLIENTS,
    still_open: clients.filter((c) => !c.closed).length,
    profile_writes: writes,
    write_errors: writeErrors,
    events_min: Math.min(...delivered),
    events_max: Math.max(...delivered),
  },
  rss_mib: { before: Number(rssBefore.toFixed(1)), every_10s: rssSamples, after: Number(rssAfter.toFixed(1)) },
};
console.log(JSON.stringify(report, null, 2));

for (const c of clients) c.socket.close();
child.kill('SIGTERM');
await agg.stop();
rmSync(base, { recursive: true, force: true });

const failures = [];
for (const [name, r] of [
  ['protected API', apiResult],
  ['route build', swapResult],
]) {
  if (r.errors || r.timeouts || r.non2xx) failures.push(`${name}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
}
if (writeErrors) failures.push(`${writeErrors} profile writes failed`);
if (report.websocket.still_open !== CLIENTS) failures.push(`${CLIENTS - report.websocket.still_open} WebSocket clients were dropped`);
if (report.websocket.events_min !== writes || report.websocket.events_max !== writes)
  failures.push(`event delivery: ${writes} writes, clients got ${report.websocket.events_min}..${report.websocket.events_max}`);
if (firstFailure) failures.push(`first failed route build: ${firstFailure.slice(0, 300)}`);
if (failures.length) {
  console.error(`soak FAILED:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log('soak OK: zero errors, every client received every event');
