/**
 * WebSocket fan-out: 500 authenticated /ws clients; one API write (PUT /api/config/defaults)
 * triggers one `config.changed`; each client's receive time is taken against the moment the
 * write was sent. Per round the p99 over the 500 clients; the figure is the median round.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { TSC_BACKEND, figure, pair, startListener, type Figure, type Listener } from './bench-kit.js';
import { percentile } from './stats.js';

interface Receiver {
  socket: WebSocket;
  /** Resolved with the receive time of the next config.changed. */
  next: (() => void) | null;
  at: number;
}

function connect(wsUrl: string): Promise<Receiver> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl);
    const receiver: Receiver = { socket, next: null, at: 0 };
    socket.once('error', reject);
    socket.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { type: string };
      if (msg.type === 'hello') resolve(receiver);
      else if (msg.type === 'config.changed' && receiver.next) {
        receiver.at = performance.now();
        const done = receiver.next;
        receiver.next = null;
        done();
      }
    });
  });
}

export async function wsFanOut(clients = 500, rounds = 15): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-ws-'));
  let backend: Listener | undefined;
  const receivers: Receiver[] = [];
  try {
    backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', path.join(tmp, 'data')]);
    const credential = await pair(backend);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${credential}` };
    const seeded = await fetch(`${backend.url}/api/config/providers`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        id: 'fan',
        name: 'Fan',
        type: 'compat',
        base_url: 'http://127.0.0.1:9/v1',
        models: [{ id: 'a' }, { id: 'b' }],
      }),
    });
    if (seeded.status !== 201) throw new Error(`seeding: ${seeded.status} ${await seeded.text()}`);
    const wsUrl = `${backend.url.replace(/^http/, 'ws')}/ws?service_credential=${encodeURIComponent(credential)}`;
    // Connect in batches of 50: a burst of 500 handshakes would measure the accept queue, not fan-out.
    for (let i = 0; i < clients; i += 50) {
      receivers.push(...(await Promise.all(Array.from({ length: Math.min(50, clients - i) }, () => connect(wsUrl)))));
    }
    const fromWrite: number[] = [];
    const fromFirst: number[] = [];
    const writeMs: number[] = [];
    for (let r = 0; r < rounds + 1; r++) {
      const all = Promise.all(receivers.map((rc) => new Promise<void>((resolve) => (rc.next = resolve))));
      const t0 = performance.now();
      const res = await fetch(`${backend.url}/api/config/defaults`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ provider: 'fan', model: r % 2 ? 'a' : 'b' }),
      });
      const answered = performance.now();
      if (res.status !== 200) throw new Error(`PUT /api/config/defaults: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      await all;
      if (r === 0) continue; // warm-up round
      const delays = receivers.map((rc) => rc.at - t0);
      const first = Math.min(...delays);
      fromWrite.push(percentile(delays, 99));
      fromFirst.push(
        percentile(
          delays.map((d) => d - first),
          99,
        ),
      );
      writeMs.push(answered - t0);
    }
    const base = { group: 'websocket', unit: 'ms' };
    return [
      figure(
        {
          ...base,
          name: `WebSocket fan-out p99, ${clients} clients (from API write sent)`,
          target: { on: 'median', op: '<=', value: 50 },
          note: `median of ${rounds} rounds' p99; write answered in ${percentile(writeMs, 50).toFixed(1)} ms (median)`,
        },
        fromWrite,
      ),
      figure({ ...base, name: `WebSocket fan-out p99, ${clients} clients (after first client got it)` }, fromFirst),
    ];
  } finally {
    for (const rc of receivers) rc.socket.terminate();
    await backend?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
