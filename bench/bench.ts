/**
 * `npm run bench`: the benchmark suite. Prints one table (median of the runs, their spread, the
 * baseline measured in the same run and the ratio to it, the target and a verdict) and writes it
 * to bench-results/bench.json. `--only logs,startup,...` runs some groups.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { apiThroughput } from './api-bench.js';
import { artifactFigures } from './artifact-bench.js';
import { attachmentFigures } from './attachment-bench.js';
import { chatUiFigures } from './chat-ui-bench.js';
import { ROOT, type Figure } from './bench-kit.js';
import { branchFigures } from './branch-bench.js';
import { chatFigures } from './chat-bench.js';
import { deskFigures } from './desk-bench.js';
import { historyFigures } from './history-bench.js';
import { knowledgeFigures } from './knowledge-bench.js';
import { logBuffer } from './log-bench.js';
import { mcpFigures } from './mcp-bench.js';
import { rendererFigures } from './renderer-bench.js';
import { retrievalFigures } from './retrieval-bench.js';
import { routeBuilds } from './route-bench.js';
import { searchFigures } from './search-bench.js';
import { coldStart, idleMemory } from './startup-bench.js';
import { tlsFigures } from './tls-bench.js';
import { webFigures } from './web-bench.js';
import { wsFanOut } from './ws-bench.js';

const GROUPS: Record<string, () => Promise<Figure[]>> = {
  logs: () => logBuffer(),
  startup: () => coldStart(),
  memory: () => idleMemory(),
  api: () => apiThroughput(),
  websocket: () => wsFanOut(),
  renderer: () => rendererFigures(),
  'chat-ui': () => chatUiFigures(),
  routes: () => routeBuilds(),
  mcp: () => mcpFigures(),
  chat: () => chatFigures(),
  branches: () => branchFigures(),
  tls: () => tlsFigures(),
  desk: () => deskFigures(),
  history: () => historyFigures(),
  search: () => searchFigures(),
  attachments: () => attachmentFigures(),
  artifacts: () => artifactFigures(),
  web: () => webFigures(),
  knowledge: () => knowledgeFigures(),
  retrieval: () => retrievalFigures(),
};

function num(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 10_000) return Math.round(v).toLocaleString('en-US');
  return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2);
}

function row(f: Figure): string[] {
  const target = f.target ? `${f.target.on === 'ratio' ? 'ratio ' : ''}${f.target.op === '<=' ? '≤' : '≥'} ${num(f.target.value)}` : '';
  return [
    f.name,
    `${num(f.median)} ${f.unit}`,
    f.spread ? `${num(f.spread[0])}–${num(f.spread[1])}` : '–',
    String(f.runs),
    f.baseline ? `${num(f.baseline.median)} ${f.unit}` : '',
    f.baseline ? `${f.baseline.ratio.toFixed(2)}×` : '',
    target,
    f.pass === undefined ? '' : f.pass ? 'ok' : 'MISS',
  ];
}

function table(figures: Figure[]): string {
  const head = ['figure', 'median', 'spread', 'n', 'baseline', 'ratio', 'target', ''];
  const rows = [head, ...figures.map(row)];
  const widths = head.map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const i = argv.indexOf('--only');
  const only = i >= 0 ? (argv[i + 1] ?? '').split(',').filter(Boolean) : Object.keys(GROUPS);
  const unknown = only.filter((g) => !(g in GROUPS));
  if (unknown.length) {
    process.stderr.write(`unknown group(s) ${unknown.join(', ')}; groups: ${Object.keys(GROUPS).join(', ')}\n`);
    return 2;
  }
  const figures: Figure[] = [];
  const failed: { group: string; error: string }[] = [];
  const t0 = performance.now();
  for (const group of only) {
    const g0 = performance.now();
    process.stderr.write(`bench: ${group}…`);
    try {
      figures.push(...(await GROUPS[group]()));
      process.stderr.write(` ${((performance.now() - g0) / 1000).toFixed(1)} s\n`);
    } catch (err) {
      failed.push({ group, error: (err as Error).stack ?? String(err) });
      process.stderr.write(` FAILED: ${(err as Error).message}\n`);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `\nBenchmarks (${os.cpus().length} CPUs, Node ${process.versions.node}, ${seconds.toFixed(0)} s). Spread: min–max of the runs.`,
  );
  console.log(table(figures));
  for (const f of figures.filter((x) => x.note)) console.log(`  · ${f.name}: ${f.note}`);
  const out = path.join(ROOT, 'bench-results', 'bench.json');
  mkdirSync(path.dirname(out), { recursive: true });
  const machine = {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    node: process.versions.node,
    platform: `${os.platform()} ${os.release()}`,
  };
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), machine, seconds, figures, failed }, null, 2)}\n`);
  console.log(`\nwritten ${path.relative(process.cwd(), out) || out}`);
  for (const f of failed) console.error(`\n${f.group} failed:\n${f.error}`);
  return failed.length ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
