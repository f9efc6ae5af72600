/**
 * The desktop log capture (app/logs): lines per second into the app's LogBuffer, which is the
 * 2000-line LogRing plus the PairingCodeTracker scan of every stdout line. Same line mix as
 * scripts/bench-log-buffer.mjs: backend-like lines, two of five starting with "p" (the scan's
 * slow path), one a real pairing-code line.
 */
import { performance } from 'node:perf_hooks';
import { LogBuffer } from '../app/logs/log-buffer.js';
import { figure, type Figure } from './bench-kit.js';

const SAMPLE = [
  'GET /api/config/providers 200 3ms',
  'pairing code: 123456 (expires 2026-11-22T12:00:00Z)',
  'paired with laptop',
  'provider openai: request finished in 812 ms',
  'warning: config.yaml line 4: base_url has a trailing slash',
];
const LINES = Array.from({ length: 1000 }, (_, i) => `${SAMPLE[i % SAMPLE.length]} #${i}`);
const CHUNK = `${LINES.join('\n')}\n`; // 1000 lines, ~40 kB: one pipe read

function linesPerSecond(count: number, run: (n: number) => void): number {
  const t0 = performance.now();
  run(count);
  return count / ((performance.now() - t0) / 1000);
}

function append(n: number): void {
  const log = new LogBuffer();
  for (let i = 0; i < n; i++) log.append('stdout', LINES[i % 1000]);
}

function writeChunks(n: number): void {
  const log = new LogBuffer();
  for (let i = 0; i < n; i += 1000) log.write('stdout', CHUNK);
}

export async function logBuffer(runs = 7, lines = 1_000_000): Promise<Figure[]> {
  append(100_000); // warm-up: JIT both paths before timing
  writeChunks(100_000);
  const appended: number[] = [];
  const written: number[] = [];
  for (let r = 0; r < runs; r++) {
    appended.push(linesPerSecond(lines, append));
    written.push(linesPerSecond(lines, writeChunks));
    await new Promise((resolve) => setImmediate(resolve)); // let timers and I/O of the harness run
  }
  const base = { group: 'logs', unit: 'lines/s' };
  return [
    figure(
      { ...base, name: 'log ring buffer append (ring + pairing-code scan)', target: { on: 'median', op: '>=', value: 1_000_000 } },
      appended,
    ),
    figure({ ...base, name: 'log capture of 40 kB chunks (split + ring + scan)', note: 'what the app does with a pipe read' }, written),
  ];
}
