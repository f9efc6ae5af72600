/**
 * Attachment figures: a 20 MiB upload (a PDF at the cap) through the real backend, its time and
 * the backend's peak resident memory during it (VmRSS sampled every 2 ms, minus the RSS before).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makePdf } from '../test/helpers/test-files.js';
import { TSC_BACKEND, figure, pair, rssMb, startListener, type Figure, type Listener } from './bench-kit.js';

const MIB = 1024 * 1024;

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
    backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', path.join(tmp, 'data')], { EXPRESS_MODE: 'release' });
    const credential = await pair(backend);
    const call = async (method: string, p: string, body?: unknown) => {
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
        body,
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
    const note = `${runs} uploads of a 20 MiB PDF (the cap), streamed to disk, hashed, fsynced, type-checked`;
    return [
      figure({ group: 'attachments', name: 'upload a 20 MiB attachment (POST → 201)', unit: 'ms', note }, times),
      figure({ group: 'attachments', name: 'backend peak RSS growth during a 20 MiB upload', unit: 'MB' }, peaks),
    ];
  } finally {
    await backend?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
