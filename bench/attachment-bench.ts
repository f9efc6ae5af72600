/**
 * Attachment figures: a 20 MiB upload (a PDF at the cap) through the real backend, its time and
 * the backend's peak resident memory during it (VmRSS sampled every 2 ms, minus the RSS before);
 * first-token latency of a compat turn carrying a 5 MB image against the same turn without it
 * (POST …/messages → first `turn.delta` at a WebSocket client; aimock answers, interleaved runs).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { Aimock } from '../test/helpers/aimock.js';
import { makePdf, makePng } from '../test/helpers/test-files.js';
import { TSC_BACKEND, figure, pair, rssMb, startListener, type Figure, type Listener } from './bench-kit.js';

const MIB = 1024 * 1024;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** A PNG of random pixels just under 5 MB (noise does not compress). */
function noisePng(side: number): Buffer {
  const noise = randomBytes(side * side * 3);
  return makePng(side, side, (x, y) => {
    const i = (y * side + x) * 3;
    return [noise[i], noise[i + 1], noise[i + 2]];
  });
}

type Call = (method: string, p: string, body?: unknown) => Promise<any>;

async function firstToken(base: string, credential: string, call: Call, runs: number) {
  const mock = await Aimock.start([{ match: { userMessage: 'bench image' }, response: { content: 'Seen it.' } }]);
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/ws?service_credential=${encodeURIComponent(credential)}`);
  try {
    await new Promise((resolve, reject) => {
      ws.once('message', resolve);
      ws.once('error', reject);
    });
    await call('POST', '/api/config/providers', {
      id: 'mock',
      name: 'Mock',
      type: 'compat',
      base_url: `${mock.url}/v1`,
      models: [{ id: 'v1', supports_vision: true }],
    });
    await call('PUT', '/api/profiles/bench', { model: 'mock:v1', compression: { enabled: false } });
    const wsp = await call('POST', '/api/workspaces', { name: 'bench-image', profile_id: 'bench' });
    const sessions = `/api/workspaces/${wsp.id}/sessions`;
    const side = 1290;
    const png = noisePng(side);
    const turn = async (withImage: boolean): Promise<number> => {
      const sid = (await call('POST', sessions, {})).id as string;
      let ids: string[] = [];
      if (withImage) {
        const res = await fetch(`${base}${sessions}/${sid}/attachments`, {
          method: 'POST',
          headers: { authorization: `Bearer ${credential}`, 'x-filename': 'noise.png' },
          body: new Uint8Array(png),
        });
        if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
        ids = [((await res.json()) as { id: string }).id];
      }
      const first = new Promise<number>((resolve) => {
        const onMessage = (data: Buffer) => {
          const msg = JSON.parse(data.toString()) as { type: string; session_id?: string };
          if (msg.session_id !== sid || msg.type !== 'turn.delta') return;
          ws.off('message', onMessage);
          resolve(performance.now());
        };
        ws.on('message', onMessage);
      });
      const t0 = performance.now();
      await call('POST', `${sessions}/${sid}/messages`, { content: 'bench image', attachments: ids });
      return (await first) - t0;
    };
    const image: number[] = [];
    const plain: number[] = [];
    for (let r = 0; r < runs + 1; r++) {
      const p = await turn(false);
      const i = await turn(true);
      if (r === 0) continue; // warm-up
      plain.push(p);
      image.push(i);
    }
    return { image, plain, bytes: png.length, side };
  } finally {
    ws.close();
    await mock.stop();
  }
}

/** A one-page PDF padded to exactly 20 MiB with a trailing comment of random bytes (new bytes each run). */
function pdfAtCap(): Buffer {
  const pdf = makePdf('bench upload');
  const padding = 20 * MIB - pdf.length - 2;
  return Buffer.concat([pdf, Buffer.from('%'), randomBytes(padding).map((b) => (b === 10 || b === 13 ? 32 : b)), Buffer.from('\n')]);
}

export async function attachmentFigures(runs = 5): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-attach-'));
  let backend: Listener | undefined;
  try {
    backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', path.join(tmp, 'data')], {
      EXPRESS_MODE: 'release',
    });
    const credential = await pair(backend);
    const call: Call = async (method, p, body) => {
      const res = await fetch(`${backend!.url}${p}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return (await res.json()) as any;
    };
    await call('PUT', '/api/profiles/bench', {});
    const wsp = await call('POST', '/api/workspaces', { name: 'bench', profile_id: 'bench' });
    const sid = (await call('POST', `/api/workspaces/${wsp.id}/sessions`, {})).id as string;
    const url = `${backend.url}/api/workspaces/${wsp.id}/sessions/${sid}/attachments`;
    const pid = backend.child.pid!;

    const times: number[] = [];
    const peaks: number[] = [];
    for (let r = 0; r < runs + 1; r++) {
      const body = pdfAtCap();
      const before = rssMb(pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 2);
      const t0 = performance.now();
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${credential}`, 'x-filename': 'bench.pdf', 'content-type': 'application/pdf' },
        body: new Uint8Array(body),
      });
      const took = performance.now() - t0;
      clearInterval(sampler);
      peak = Math.max(peak, rssMb(pid));
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      if (r === 0) continue; // warm-up
      times.push(took);
      peaks.push(peak - before);
    }
    const latency = await firstToken(backend.url, credential, call, runs);
    const note = `${runs} uploads of a 20 MiB PDF (the cap), streamed to disk, hashed, fsynced, type-checked`;
    return [
      figure({ group: 'attachments', name: 'upload a 20 MiB attachment (POST → 201)', unit: 'ms', note }, times),
      figure({ group: 'attachments', name: 'backend peak RSS growth during a 20 MiB upload', unit: 'MB' }, peaks),
      figure(
        {
          group: 'attachments',
          name: 'first token of a turn with a 5 MB image',
          unit: 'ms',
          baseline: { name: 'same turn, no image', median: median(latency.plain), ratio: median(latency.image) / median(latency.plain) },
          note: `image ${(latency.bytes / 1e6).toFixed(2)} MB PNG (${latency.side}×${latency.side}, noise); compat via aimock; without it: ${median(latency.plain).toFixed(1)} ms`,
        },
        latency.image,
      ),
    ];
  } finally {
    await backend?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
