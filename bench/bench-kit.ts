/** Shared pieces of `npm run bench`: the figure record, summaries, and spawning listeners. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { median, percentile } from './stats.js';

/** Repository root (this file runs from dist/bench/). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TSC_BACKEND = fileURLToPath(new URL('../backend/main.js', import.meta.url));
export const BUNDLED_BACKEND = fileURLToPath(new URL('../../dist-app/backend/service-backend.mjs', import.meta.url));
export const BASELINE_SERVER = fileURLToPath(new URL('./baseline-server.js', import.meta.url));

export interface Target {
  /** What the target is checked on: the median itself or its ratio to the baseline. */
  on: 'median' | 'ratio';
  op: '<=' | '>=';
  value: number;
}

export interface Figure {
  group: string;
  name: string;
  unit: string;
  median: number;
  /** Spread of the runs; `spreadKind` says which (min–max of runs, or p25–p75 of samples). */
  spread: [number, number] | null;
  spreadKind: 'min–max' | 'p25–p75' | 'none';
  runs: number;
  baseline?: { name: string; median: number; ratio: number };
  target?: Target;
  pass?: boolean;
  note?: string;
}

export function minMax(values: number[]): [number, number] {
  return [Math.min(...values), Math.max(...values)];
}

/** A figure from repeated runs: median, min–max, and the target verdict. */
export function figure(
  fields: Omit<Figure, 'median' | 'spread' | 'spreadKind' | 'runs' | 'pass'>,
  runs: number[],
  kind: 'min–max' | 'p25–p75' = 'min–max',
): Figure {
  const spread: [number, number] | null =
    runs.length < 2 ? null : kind === 'min–max' ? minMax(runs) : [percentile(runs, 25), percentile(runs, 75)];
  const f: Figure = { ...fields, median: median(runs), spread, spreadKind: spread ? kind : 'none', runs: runs.length };
  return judge(f);
}

export function judge(f: Figure): Figure {
  if (!f.target) return f;
  const v = f.target.on === 'ratio' ? f.baseline?.ratio : f.median;
  if (v === undefined || !Number.isFinite(v)) return { ...f, pass: false };
  return { ...f, pass: f.target.op === '<=' ? v <= f.target.value : v >= f.target.value };
}

/** Median of per-pair ratios: each pair was measured back to back, so noise mostly cancels. */
export function pairedRatio(subject: number[], baseline: number[]): number {
  return median(subject.map((s, i) => s / baseline[i]));
}

export interface Listener {
  child: ChildProcess;
  url: string;
  /** ms from spawn() to the first 200 from GET /health. */
  startMs: number;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Spawns a server that prints `listening on http://host:port`, then polls GET /health until 200.
 * The time is measured from just before spawn() to that answer, as a user starting it would see.
 */
export async function startListener(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  nodeFlags: string[] = [],
): Promise<Listener> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, entry, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not listen within 15 s:\n${out}`)), 15_000);
    let listening = false;
    const onData = (chunk: Buffer) => {
      // Keep the start of the log (listening and pairing lines); drop the access log of a load run.
      if (out.length < 256 * 1024) out += chunk.toString();
      const m = listening ? null : /^listening on (https?:\/\/\S+)$/m.exec(out);
      if (m) {
        listening = true;
        clearTimeout(timer);
        resolve(m[1].replace('[::1]', 'localhost'));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`${entry} exited before listening:\n${out}`)));
  });
  for (;;) {
    const res = await fetch(`${url}/health`).catch(() => undefined);
    if (res) await res.arrayBuffer();
    if (res?.status === 200) break;
    if (child.exitCode !== null) throw new Error(`${entry} exited:\n${out}`);
  }
  const startMs = performance.now() - t0;
  return {
    child,
    url,
    startMs,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resident set size of a process in MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Claims the pairing code the backend printed; returns the credential. */
export async function pair(l: Listener): Promise<string> {
  const deadline = performance.now() + 10_000;
  let m: RegExpExecArray | null;
  while (!(m = /^pairing code: (\d{6})/m.exec(l.output()))) {
    if (performance.now() > deadline) throw new Error(`no pairing code in the log:\n${l.output()}`);
    await sleep(20);
  }
  const res = await fetch(`${l.url}/api/pairing/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pairing_code: m[1] }),
  });
  const body = (await res.json()) as { credential?: string };
  if (res.status !== 200 || !body.credential) throw new Error(`pairing failed: ${res.status} ${JSON.stringify(body)}`);
  return body.credential;
}
