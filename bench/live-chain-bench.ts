/**
 * Route builds on a live-like chain (DESIGN 17): a block every 0.45 s (BNB Chain) while the
 * builder answers through an RPC proxy with an 80 ms round trip, against the same builds straight
 * against the local node. Round trips are reported as (build − direct build) / 80 ms; the first
 * build of a fresh backend (discovery included) as its time / 80 ms.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { stringify } from 'yaml';
import { startDevchain, type Devchain } from '../devchain/devchain.js';
import { BackendProcess, tempDir } from '../test/helpers/backend-process.js';
import { RpcProxy, type ProxyOptions } from '../test/swap/rpc-proxy.js';
import type { Figure } from './bench-kit.js';
import { scenarios } from './route-speed.js';
import { percentile } from './stats.js';

const RTT_MS = 80;
const BLOCK_MS = 450;

async function backendFor(chain: Devchain, overrides: Record<string, unknown>): Promise<BackendProcess> {
  const dataDir = path.join(tempDir('svc-livebench-'), 'data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const yaml = structuredClone(chain.swapYaml.object) as unknown as { chains: { bsc: Record<string, unknown> } };
  Object.assign(yaml.chains.bsc, overrides);
  writeFileSync(path.join(dataDir, 'swap.yaml'), stringify(yaml));
  return BackendProcess.start({ dataDir, env: { EXPRESS_MODE: 'release' } });
}

async function post(url: string, body: unknown): Promise<{ ok: boolean; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/v1/route/build`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.text();
  return { ok: res.status === 200, ms: performance.now() - t0 };
}

interface Run {
  ms: number[];
  ok: number;
  total: number;
  /** Per build, the sequential round trips the proxy saw answered before the build's answer (V4 log index aside). */
  trips: number[];
}

async function timedBuilds(url: string, bodies: unknown[], rounds: number, label: string, proxy?: RpcProxy): Promise<Run> {
  process.stderr.write(`live chain: ${label}\n`);
  for (const b of bodies) await post(url, b); // warm: pools discovered, the follower running
  const run: Run = { ms: [], ok: 0, total: 0, trips: [] };
  for (let r = 0; r < rounds; r++) {
    for (const b of bodies) {
      const from = proxy?.timeline.length ?? 0;
      const res = await post(url, b);
      run.total++;
      if (res.ok) {
        run.ok++;
        run.ms.push(res.ms);
        if (proxy) run.trips.push(proxy.rounds(from, (calls) => !calls.includes('eth_getLogs'), performance.now()));
      }
    }
  }
  return run;
}

const fig = (name: string, unit: string, median: number, note: string, samples?: number[]): Figure => ({
  group: 'routes',
  name,
  unit,
  median,
  spread: samples && samples.length > 0 ? [Math.min(...samples), Math.max(...samples)] : null,
  spreadKind: samples ? 'min–max' : 'none',
  runs: samples?.length ?? 1,
  note,
});

export async function liveChainFigures(rounds = 4): Promise<Figure[]> {
  const chain = await startDevchain({ dataDir: path.join(tempDir('svc-livebench-'), 'data') });
  const proxies: RpcProxy[] = [];
  const backends: BackendProcess[] = [];
  const proxy = async (o: ProxyOptions) => {
    const p = await new RpcProxy(chain.rpcUrl, o).start();
    proxies.push(p);
    return p;
  };
  const miner = setInterval(() => void chain.provider.send('evm_mine', []).catch(() => {}), BLOCK_MS);
  try {
    const bodies = scenarios(chain).map((c) => ({ chain: 'bsc', sender: chain.user.address, ...c.body }));
    const generous = await proxy({ latencyMs: RTT_MS });
    const generousWs = await proxy({ latencyMs: RTT_MS });
    const hosted = await proxy({ latencyMs: RTT_MS, maxBatch: 20, refusal: 'geth', rateLimitEvery: 15, retryAfter: '0' });
    const fresh = await proxy({ latencyMs: RTT_MS });
    // Each backend runs alone: one that follows the chain keeps reading every followed pool at each
    // block, and on a shared 2-core machine the others' reads would be measured as its latency.
    const alone = async <T>(overrides: Record<string, unknown>, run: (b: BackendProcess) => Promise<T>): Promise<T> => {
      const b = await backendFor(chain, overrides);
      backends.push(b);
      try {
        return await run(b);
      } finally {
        await b.stop();
      }
    };
    // First build of a fresh backend (empty data dir): discovery, state, gas simulation.
    process.stderr.write('live chain: first build\n');
    const firstBuild = await alone({ rpc_url: fresh.url }, (b) => post(b.swapUrl, bodies[2]));
    const firstTrips = fresh.rounds(0, (calls) => !calls.includes('eth_getLogs'), performance.now());
    const d = await alone({}, (b) => timedBuilds(b.swapUrl, bodies, rounds, 'direct'));
    const p = await alone({ rpc_url: generous.url }, (b) => timedBuilds(b.swapUrl, bodies, rounds, '80 ms, polled', generous));
    const s = await alone({ rpc_url: generousWs.url, ws_url: chain.rpcUrl.replace(/^http/, 'ws') }, (b) =>
      timedBuilds(b.swapUrl, bodies, rounds, '80 ms, ws', generousWs),
    );
    const c = await alone({ rpc_url: hosted.url, rpc: { max_batch: 100 } }, (b) =>
      timedBuilds(b.swapUrl, bodies, rounds, 'cap 20 + 429', hosted),
    );
    const dp50 = percentile(d.ms, 50);
    const rtt = (ms: number) => (ms - dp50) / RTT_MS;
    const trips = (r: Run) =>
      `sequential requests answered during the build, counted at the proxy, gas simulation included; p95 ${percentile(r.trips, 95)}`;
    const note = `${bodies.length} scenarios × ${rounds}, blocks every ${BLOCK_MS} ms, gas simulated`;
    return [
      fig('live chain: direct to the local node, p50', 'ms', dp50, note, d.ms),
      fig('live chain: direct, p95', 'ms', percentile(d.ms, 95), note),
      fig('live chain: 80 ms node, polled heads, p50', 'ms', percentile(p.ms, 50), note, p.ms),
      fig('live chain: 80 ms node, polled heads, p95', 'ms', percentile(p.ms, 95), note),
      fig('live chain: 80 ms node, polled heads, p50 above direct', 'RTT', rtt(percentile(p.ms, 50)), 'goal ≤ 2'),
      fig('live chain: 80 ms node, ws heads, p50', 'ms', percentile(s.ms, 50), `${note}; newHeads by subscription`, s.ms),
      fig('live chain: 80 ms node, ws heads, p95', 'ms', percentile(s.ms, 95), note),
      fig(
        'live chain: 80 ms node, ws heads, p50 above direct',
        'RTT',
        rtt(percentile(s.ms, 50)),
        'goal ≤ 1 when the block is read already',
      ),
      fig(
        'live chain: cap 20 + 429 every 15th, success',
        '%',
        (100 * c.ok) / c.total,
        `${c.ok}/${c.total}; ${hosted.refusedBatches} refused batches, ${hosted.rateLimited} 429s`,
      ),
      fig('live chain: cap 20 + 429, p50', 'ms', percentile(c.ms, 50), note, c.ms),
      fig('live chain: first build of a fresh backend', 'ms', firstBuild.ms, firstBuild.ok ? 'discovery included' : 'FAILED'),
      fig('live chain: first build of a fresh backend', 'RTT', firstBuild.ms / RTT_MS, 'goal ≤ 6'),
      // Counted, not timed: what the builder asks of the node whatever the machine's load.
      fig(
        'live chain: first build of a fresh backend, sequential round trips',
        'trips',
        firstTrips,
        'counted at the proxy; gas simulation included',
      ),
      fig('live chain: polled heads, round trips per build, p50', 'trips', percentile(p.trips, 50), trips(p), p.trips),
      fig('live chain: ws heads, round trips per build, p50', 'trips', percentile(s.trips, 50), trips(s), s.trips),
      fig('live chain: cap 20 + 429, round trips per build, p50', 'trips', percentile(c.trips, 50), trips(c), c.trips),
    ];
  } finally {
    clearInterval(miner);
    await Promise.all(backends.map((b) => b.stop()));
    await Promise.all(proxies.map((x) => x.stop()));
    await chain.stop();
  }
}
