/**
 * Chat figures. Engine overhead: aimock streams 200 one-token chunks through a tap that stamps the
 * moment each chunk leaves toward its reader; the figure is the time from that stamp to the
 * `turn.delta` frame at a WebSocket client of the backend, against the same stamp to the chunk at a
 * client that reads the stream directly (baseline), interleaved in the same run. Also: opening a
 * session of 10,000 messages (GET, first page).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { Aimock } from '../test/helpers/aimock.js';
import { TSC_BACKEND, figure, pair, startListener, type Figure, type Listener } from './bench-kit.js';
import { percentile } from './stats.js';

export const TOKENS = 200;
export const TEXT = Array.from({ length: TOKENS }, (_, i) => `k${String(i).padStart(3, '0')} `).join('');
const TOKEN = /k\d{3}/g;

/** Forwards to aimock and stamps, per token, when its chunk was written toward the reader. */
export class Tap {
  stamps = new Map<string, number>();
  url = '';
  private server!: Server;

  async start(target: string): Promise<void> {
    const t = new URL(target);
    this.server = createServer((req, res) => {
      const up = request(
        { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.on('data', (chunk: Buffer) => {
            res.write(chunk);
            const now = performance.now();
            for (const m of chunk.toString().match(TOKEN) ?? []) if (!this.stamps.has(m)) this.stamps.set(m, now);
          });
          upRes.on('end', () => res.end());
        },
      );
      req.pipe(up);
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    const a = this.server.address();
    this.url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

export async function direct(tap: Tap): Promise<number[]> {
  tap.stamps.clear();
  const seen = new Map<string, number>();
  const res = await fetch(`${tap.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm1', stream: true, messages: [{ role: 'user', content: 'bench stream' }] }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const now = performance.now();
    for (const m of decoder.decode(chunk, { stream: true }).match(TOKEN) ?? []) if (!seen.has(m)) seen.set(m, now);
  }
  return [...seen].map(([k, t]) => t - (tap.stamps.get(k) ?? t));
}

export async function viaBackend(tap: Tap, base: string, credential: string, ws: WebSocket, sid: string): Promise<number[]> {
  tap.stamps.clear();
  const seen = new Map<string, number>();
  const done = new Promise<void>((resolve) => {
    const onMessage = (data: Buffer) => {
      const now = performance.now();
      const msg = JSON.parse(data.toString()) as { type: string; text?: string; session_id?: string };
      if (msg.session_id !== sid) return;
      if (msg.type === 'turn.delta') for (const m of msg.text?.match(TOKEN) ?? []) if (!seen.has(m)) seen.set(m, now);
      if (msg.type === 'turn.completed' || msg.type === 'turn.failed') {
        ws.off('message', onMessage);
        resolve();
      }
    };
    ws.on('message', onMessage);
  });
  const res = await fetch(`${base}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
    body: JSON.stringify({ content: 'bench stream' }),
  });
  if (res.status !== 202) throw new Error(`POST messages: ${res.status} ${await res.text()}`);
  await done;
  if (seen.size < TOKENS) throw new Error(`only ${seen.size} of ${TOKENS} tokens arrived as frames`);
  return [...seen].map(([k, t]) => t - (tap.stamps.get(k) ?? t));
}

function longHistory(pairs: number): string {
  const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. '.repeat(2);
  const lines: string[] = [];
  for (let i = 0; i < pairs; i++) {
    const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    lines.push(
      JSON.stringify({
        t: 'message',
        m: { id: `m-u${i}`, role: 'user', created_at: at, blocks: [{ type: 'text', text: `q${i} ${filler}` }] },
      }),
    );
    lines.push(
      JSON.stringify({
        t: 'message',
        m: {
          id: `m-a${i}`,
          role: 'assistant',
          created_at: at,
          blocks: [{ type: 'text', text: `a${i} ${filler}` }],
          usage: { input: 10, output: 20, cache_read: 0, cache_write: 0, reasoning: 0 },
        },
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A paired backend ready for chat benches: a compat provider `mock` behind `tapUrl` as the default,
 * a profile without compression, one workspace, and a WebSocket that has said hello. `call` sends
 * JSON with the credential and fails on any status >= 300; `sessions` is the workspace's sessions path.
 */
export async function chatBackendSetup(
  l: Listener,
  credential: string,
  tapUrl: string,
): Promise<{ call: (method: string, p: string, body?: unknown) => Promise<any>; workspaceId: string; sessions: string; ws: WebSocket }> {
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${l.url}${p}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };
  await call('POST', '/api/config/providers', {
    id: 'mock',
    name: 'Mock',
    type: 'compat',
    base_url: `${tapUrl}/v1`,
    models: [{ id: 'm1' }],
  });
  await call('PUT', '/api/config/defaults', { provider: 'mock', model: 'm1' });
  await call('PUT', '/api/profiles/bench', { compression: { enabled: false } });
  const wsp = await call('POST', '/api/workspaces', { name: 'bench', profile_id: 'bench' });
  const ws = new WebSocket(`${l.url.replace(/^http/, 'ws')}/ws?service_credential=${encodeURIComponent(credential)}`);
  await new Promise((resolve, reject) => {
    ws.once('message', resolve);
    ws.once('error', reject);
  });
  return { call, workspaceId: wsp.id as string, sessions: `/api/workspaces/${wsp.id}/sessions`, ws };
}

export async function chatFigures(rounds = 4): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-chat-'));
  let backend: Listener | undefined;
  let mock: Aimock | undefined;
  const tap = new Tap();
  let ws: WebSocket | undefined;
  try {
    mock = await Aimock.start([{ match: { userMessage: 'bench stream' }, response: { content: TEXT }, latency: 3, chunkSize: 5 }]);
    await tap.start(mock.url);
    const dataDir = path.join(tmp, 'data');
    backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', dataDir], { EXPRESS_MODE: 'release' });
    const credential = await pair(backend);
    const setup = await chatBackendSetup(backend, credential, tap.url);
    const { call, sessions, workspaceId } = setup;
    ws = setup.ws;

    const engine: number[] = [];
    const baseline: number[] = [];
    for (let r = 0; r < rounds + 1; r++) {
      const sid = (await call('POST', sessions, {})).id as string;
      const b = await direct(tap);
      const e = await viaBackend(tap, `${backend.url}${sessions}/${sid}`, credential, ws, sid);
      if (r === 0) continue; // warm-up: lazy protocol load, JIT
      baseline.push(...b);
      engine.push(...e);
    }

    const long = (await call('POST', sessions, { title: 'long' })).id as string;
    writeFileSync(path.join(dataDir, 'workspaces', workspaceId, 'sessions', long, 'events.jsonl'), longHistory(5000));
    const open: number[] = [];
    for (let i = 0; i < 12; i++) {
      const t0 = performance.now();
      const page = await call('GET', `${sessions}/${long}`);
      open.push(performance.now() - t0);
      if (page.messages.length !== 50) throw new Error('first page is not 50 messages');
    }

    const base = { group: 'chat', unit: 'ms' };
    const p = (v: number[], q: number) => percentile(v, q);
    const note = `${engine.length} chunks in ${rounds} turns (compat, aimock via a stamping tap); direct reader p50 ${p(baseline, 50).toFixed(2)} ms, p99 ${p(baseline, 99).toFixed(2)} ms`;
    const over50 = p(engine, 50) - p(baseline, 50);
    const over99 = p(engine, 99) - p(baseline, 99);
    return [
      figure(
        { ...base, name: 'chat chunk → WS frame p50, overhead over direct read', target: { on: 'median', op: '<=', value: 1 }, note },
        [over50],
      ),
      figure({ ...base, name: 'chat chunk → WS frame p99, overhead over direct read', target: { on: 'median', op: '<=', value: 5 } }, [
        over99,
      ]),
      figure(
        { ...base, name: 'open a 10,000-message session (first page)', target: { on: 'median', op: '<=', value: 200 } },
        open.slice(2),
      ),
    ];
  } finally {
    ws?.terminate();
    await backend?.stop();
    await tap.stop().catch(() => undefined);
    await mock?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
