/**
 * Protected API throughput: GET /api/config/providers with a credential over loopback, 50
 * connections (autocannon), against a bare node:http server answering the same JSON bytes.
 * Subject and baseline alternate within the run, so the ratio is taken on neighbouring runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { BASELINE_SERVER, TSC_BACKEND, figure, pair, pairedRatio, startListener, type Figure, type Listener } from './bench-kit.js';
import { median } from './stats.js';

/** Three providers with a few models each: a realistic, not empty, configuration. */
function provider(id: string, models: number) {
  return {
    id,
    name: `Provider ${id}`,
    type: 'compat',
    base_url: `http://127.0.0.1:9/${id}/v1`,
    api_key: `sk-${id}-0123456789abcdef`,
    models: Array.from({ length: models }, (_, i) => ({
      id: `${id}-model-${i}`,
      name: `Model ${i}`,
      context_window: 128_000,
      supports_tools: true,
    })),
  };
}

export async function seedProviders(url: string, credential: string): Promise<void> {
  for (const p of [provider('alpha', 4), provider('beta', 6), provider('gamma', 3)]) {
    const res = await fetch(`${url}/api/config/providers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
      body: JSON.stringify(p),
    });
    if (res.status !== 201) throw new Error(`seeding provider ${p.id}: ${res.status} ${await res.text()}`);
  }
}

async function load(url: string, seconds: number, headers: Record<string, string> = {}): Promise<number> {
  const r = await autocannon({ url: `${url}/api/config/providers`, connections: 50, duration: seconds, headers });
  if (r.errors || r.non2xx || r.timeouts)
    throw new Error(`load on ${url}: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
  return r['2xx'] / r.duration;
}

export async function apiThroughput(rounds = 3, seconds = 2.5): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-api-'));
  const listeners: Listener[] = [];
  try {
    const backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', path.join(tmp, 'data')]);
    listeners.push(backend);
    const credential = await pair(backend);
    await seedProviders(backend.url, credential);
    const auth = { authorization: `Bearer ${credential}` };
    const res = await fetch(`${backend.url}/api/config/providers`, { headers: auth });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`GET /api/config/providers: ${res.status} ${body}`);
    const bodyFile = path.join(tmp, 'providers.json');
    writeFileSync(bodyFile, body);
    const bare = await startListener(BASELINE_SERVER, ['bare', bodyFile]);
    listeners.push(bare);
    const check = Buffer.from(await (await fetch(`${bare.url}/api/config/providers`)).arrayBuffer());
    if (!check.equals(body)) throw new Error('the baseline does not answer the same JSON');

    const minimal = await startListener(BASELINE_SERVER, ['express', bodyFile]);
    listeners.push(minimal);

    // Warm-up (JIT, keep-alive pools), not counted.
    const runs = [() => load(bare.url, seconds), () => load(backend.url, seconds, auth), () => load(minimal.url, seconds)];
    await load(bare.url, 1);
    await load(backend.url, 1, auth);
    await load(minimal.url, 1);
    const results: number[][] = [[], [], []];
    for (let r = 0; r < rounds; r++) {
      // Rotate which goes first so a drift in machine load hits all equally.
      for (let k = 0; k < runs.length; k++) {
        const which = (r + k) % runs.length;
        results[which].push(await runs[which]());
      }
    }
    const [baseline, subject, framework] = results;
    return [
      figure(
        {
          group: 'api',
          name: 'protected API throughput (GET /api/config/providers, 50 conn)',
          unit: 'req/s',
          baseline: { name: 'bare node:http, same JSON', median: median(baseline), ratio: pairedRatio(subject, baseline) },
          target: { on: 'ratio', op: '>=', value: 0.5 },
          note: `${body.length} B body, ${seconds} s per run, default config (access log on)`,
        },
        subject,
      ),
      figure(
        {
          group: 'api',
          name: 'reference: minimal express 5 app, same JSON (no guards, no auth)',
          unit: 'req/s',
          baseline: { name: 'bare node:http, same JSON', median: median(baseline), ratio: pairedRatio(framework, baseline) },
          note: `the backend is at ${pairedRatio(subject, framework).toFixed(2)}× of this framework floor`,
        },
        framework,
      ),
    ];
  } finally {
    await Promise.all(listeners.map((l) => l.stop()));
    rmSync(tmp, { recursive: true, force: true });
  }
}
