// Throughput of the desktop log capture (not a test). Needs the tsc build: npm run build && node scripts/bench-log-buffer.mjs
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LogBuffer } from '../dist/app/logs/log-buffer.js';
import { LogFileMirror } from '../dist/app/logs/log-file-mirror.js';

const N = 2_000_000;
const sample = [
  'GET /api/config/providers 200 3ms',
  'pairing code: 123456 (expires 2026-11-22T12:00:00Z)',
  'paired with laptop',
  'provider openai: request finished in 812 ms',
  'warning: config.yaml line 4: base_url has a trailing slash',
];
const lines = Array.from({ length: 1000 }, (_, i) => `${sample[i % sample.length]} #${i}`);

function report(name, count, ms) {
  console.log(`${name.padEnd(44)} ${(count / (ms / 1000) / 1e6).toFixed(2)} M lines/s (${count} lines in ${ms.toFixed(0)} ms)`);
}

function bench(name, run) {
  run(50_000); // warm-up
  const start = performance.now();
  run(N);
  report(name, N, performance.now() - start);
}

bench('append (ring + pairing-code scan)', (n) => {
  const log = new LogBuffer();
  for (let i = 0; i < n; i++) log.append('stdout', lines[i % 1000]);
});

const chunk = `${lines.join('\n')}\n`; // 1000 lines per chunk, ~40 kB like a pipe read
bench('write 40 kB chunks (split + ring + scan)', (n) => {
  const log = new LogBuffer();
  for (let i = 0; i < n; i += 1000) log.write('stdout', chunk);
});

const crlf = `${lines.join('\r\n')}\r\n`;
bench('write CRLF chunks', (n) => {
  const log = new LogBuffer();
  for (let i = 0; i < n; i += 1000) log.write('stderr', crlf);
});

const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
const mirror = new LogFileMirror(path.join(dir, 'backend.log'));
const log = new LogBuffer({ mirror });
const start = performance.now();
for (let i = 0; i < N; i += 1000) log.write('stdout', chunk);
const appended = performance.now() - start;
await log.close();
report('with file mirror: append only', N, appended);
report('with file mirror: until trimmed on disk', N, performance.now() - start);
rmSync(dir, { recursive: true, force: true });
