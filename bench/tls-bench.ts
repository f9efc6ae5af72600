/**
 * TLS figures: (1) a new connection plus the first authenticated request (GET /api/config/providers)
 * over HTTPS against plain HTTP, on loopback, fresh connection each time, interleaved; (2) the chat
 * chunk → frame overhead over a direct read at a WSS client against a WS client (same engine, same
 * stamping tap, turns alternating between the two backends).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { trustExtraCaCertificates } from '../backend/cli/extra-ca-certs.js';
import { generateSelfSigned } from '../backend/selfhost/tls-certificate.js';
import { Aimock } from '../test/helpers/aimock.js';
import { TSC_BACKEND, figure, pair, pairedRatio, startListener, type Figure, type Listener } from './bench-kit.js';
import { chatBackendSetup, direct, Tap, TEXT, viaBackend } from './chat-bench.js';
import { median, percentile } from './stats.js';

/** One request on a connection of its own: connect (+ handshake) + request + full answer. */
function freshRequest(url: string, credential: string): Promise<number> {
  const lib = url.startsWith('https:') ? https : http;
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = lib.request(`${url}/api/config/providers`, { agent: false, headers: { authorization: `Bearer ${credential}` } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

export async function tlsFigures(requests = 60, rounds = 4): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-tls-'));
  const listeners: Listener[] = [];
  const sockets: WebSocket[] = [];
  let mock: Aimock | undefined;
  const tap = new Tap();
  try {
    // The operator-certificate path, so this process can trust it before the backend starts.
    const pair_ = await generateSelfSigned(['localhost', '127.0.0.1']);
    writeFileSync(path.join(tmp, 'cert.pem'), pair_.cert);
    writeFileSync(path.join(tmp, 'key.pem'), pair_.key, { mode: 0o600 });
    trustExtraCaCertificates([pair_.cert]);
    const env = { EXPRESS_MODE: 'release' };
    const plain = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', path.join(tmp, 'plain')], env);
    listeners.push(plain);
    const tlsArgs = ['-tls-cert', path.join(tmp, 'cert.pem'), '-tls-key', path.join(tmp, 'key.pem')];
    const secure = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', path.join(tmp, 'tls'), ...tlsArgs], env);
    listeners.push(secure);
    const [plainCred, tlsCred] = [await pair(plain), await pair(secure)];

    const httpMs: number[] = [];
    const httpsMs: number[] = [];
    for (let i = 0; i < requests + 5; i++) {
      const a = await freshRequest(plain.url, plainCred);
      const b = await freshRequest(secure.url, tlsCred);
      if (i < 5) continue; // warm-up
      httpMs.push(a);
      httpsMs.push(b);
    }

    mock = await Aimock.start([{ match: { userMessage: 'bench stream' }, response: { content: TEXT }, latency: 3, chunkSize: 5 }]);
    await tap.start(mock.url);
    const ws = await chatBackendSetup(plain, plainCred, tap.url);
    const wss = await chatBackendSetup(secure, tlsCred, tap.url);
    sockets.push(ws.ws, wss.ws);
    const wsOver: number[] = [];
    const wssOver: number[] = [];
    for (let r = 0; r < rounds + 1; r++) {
      const s1 = (await ws.call('POST', ws.sessions, {})).id as string;
      const s2 = (await wss.call('POST', wss.sessions, {})).id as string;
      const b1 = await direct(tap);
      const e1 = await viaBackend(tap, `${plain.url}${ws.sessions}/${s1}`, plainCred, ws.ws, s1);
      const b2 = await direct(tap);
      const e2 = await viaBackend(tap, `${secure.url}${wss.sessions}/${s2}`, tlsCred, wss.ws, s2);
      if (r === 0) continue;
      wsOver.push(percentile(e1, 50) - percentile(b1, 50));
      wssOver.push(percentile(e2, 50) - percentile(b2, 50));
    }

    const note = `${requests} fresh connections each, alternating; ECDSA P-256, TLS 1.3, loopback`;
    const handshake = figure(
      { group: 'tls', unit: 'ms', name: 'HTTPS new connection + first authenticated request', note },
      httpsMs,
      'p25–p75',
    );
    const frames = figure(
      {
        group: 'tls',
        unit: 'ms',
        name: 'chat chunk → WSS frame p50, overhead over direct read',
        note: `${rounds} turns each, alternating with WS`,
      },
      wssOver,
    );
    return [
      figure({ group: 'tls', unit: 'ms', name: 'HTTP new connection + first authenticated request', note }, httpMs, 'p25–p75'),
      { ...handshake, baseline: { name: 'plain HTTP', median: median(httpMs), ratio: pairedRatio(httpsMs, httpMs) } },
      figure({ group: 'tls', unit: 'ms', name: 'chat chunk → WS frame p50, overhead over direct read (same run)' }, wsOver),
      { ...frames, baseline: { name: 'WS', median: median(wsOver), ratio: median(wsOver) > 0 ? median(wssOver) / median(wsOver) : NaN } },
    ];
  } finally {
    for (const s of sockets) s.terminate();
    await Promise.all(listeners.map((l) => l.stop()));
    await tap.stop().catch(() => undefined);
    await mock?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
