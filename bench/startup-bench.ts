/**
 * Backend cold start (spawn → first GET /health 200) and idle memory (RSS 5 s after spawn, paired),
 * each against the bare node:http baseline measured interleaved in the same run. Both the tsc
 * output (dist/backend) and the app's one-file bundle (dist-app/backend) are measured.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  BASELINE_SERVER,
  BUNDLED_BACKEND,
  TSC_BACKEND,
  figure,
  pair,
  pairedRatio,
  rssMb,
  sleep,
  startListener,
  type Figure,
  type Listener,
} from './bench-kit.js';
import { median } from './stats.js';

interface Subject {
  label: string;
  entry: string;
  env?: NodeJS.ProcessEnv;
}

/** The compile cache lives in its own folder per run, so the figure is a user's second start, never a stale cache. */
function subjects(cacheDir: string): Subject[] {
  const list: Subject[] = [{ label: 'tsc dist/backend', entry: TSC_BACKEND }];
  if (existsSync(BUNDLED_BACKEND)) {
    list.push({ label: 'bundled dist-app/backend', entry: BUNDLED_BACKEND, env: { NODE_COMPILE_CACHE: cacheDir } });
    list.push({ label: 'bundled, compile cache off', entry: BUNDLED_BACKEND, env: { NODE_DISABLE_COMPILE_CACHE: '1' } });
  }
  return list;
}

function backendArgs(dataDir: string, swap: 'off' | '0'): string[] {
  return ['-port', '0', '-swap-port', swap, '-data', dataDir];
}

async function timedStart(entry: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const listener = await startListener(entry, args, env);
  await listener.stop();
  return listener.startMs;
}

export async function coldStart(rounds = 9): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-start-'));
  const subs = subjects(path.join(tmp, 'compile-cache'));
  const bare: number[] = [];
  const times = subs.map(() => [] as number[]);
  try {
    // One discarded start of each warms the OS file cache (a user's second start, not first boot).
    await timedStart(BASELINE_SERVER, ['bare']);
    for (const s of subs) await timedStart(s.entry, backendArgs(path.join(tmp, `warm-${s.label.length}`), 'off'), s.env);
    for (let r = 0; r < rounds; r++) {
      bare.push(await timedStart(BASELINE_SERVER, ['bare']));
      for (const [i, s] of subs.entries()) {
        times[i].push(await timedStart(s.entry, backendArgs(path.join(tmp, `d${r}-${i}`), 'off'), s.env));
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return subs.map((s, i) =>
    figure(
      {
        group: 'startup',
        name: `backend cold start (${s.label}, -swap-port off)`,
        unit: 'ms',
        baseline: { name: 'bare node:http', median: median(bare), ratio: pairedRatio(times[i], bare) },
        target: { on: 'median', op: '<=', value: 300 },
      },
      times[i],
    ),
  );
}

/** RSS at spawn + 5 s: `copies` of each subject (paired, default config) and of the baseline at once. */
export async function idleMemory(copies = 3): Promise<Figure[]> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-mem-'));
  const subs = subjects(path.join(tmp, 'compile-cache'));
  const started: { kind: number; listener: Listener; t0: number }[] = [];
  try {
    const starts: Promise<void>[] = [];
    for (let c = 0; c < copies; c++) {
      const t0 = performance.now();
      starts.push(startListener(BASELINE_SERVER, ['bare']).then((listener) => void started.push({ kind: -1, listener, t0 })));
      for (const [i, s] of subs.entries()) {
        const args = backendArgs(path.join(tmp, `m${c}-${i}`), '0');
        starts.push(
          startListener(s.entry, args, s.env).then(async (listener) => {
            started.push({ kind: i, listener, t0 });
            await pair(listener);
          }),
        );
      }
    }
    await Promise.all(starts);
    const rss = new Map<number, number[]>();
    for (const s of started.sort((a, b) => a.t0 - b.t0)) {
      await sleep(Math.max(0, s.t0 + 5000 - performance.now()));
      rss.set(s.kind, [...(rss.get(s.kind) ?? []), rssMb(s.listener.child.pid!)]);
    }
    const bare = rss.get(-1) ?? [];
    return subs.map((s, i) =>
      figure(
        {
          group: 'startup',
          name: `idle memory, RSS 5 s after start, paired (${s.label})`,
          unit: 'MB',
          baseline: { name: 'bare node:http', median: median(bare), ratio: median(rss.get(i)!) / median(bare) },
          target: { on: 'median', op: '<=', value: 80 },
        },
        rss.get(i)!,
      ),
    );
  } finally {
    await Promise.all(started.map((s) => s.listener.stop()));
    rmSync(tmp, { recursive: true, force: true });
  }
}
