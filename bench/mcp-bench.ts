/**
 * Tool servers: the first tool call on a cold stdio server (spawn + initialize + list + call, in a
 * fresh process so the lazy SDK import counts) and the backend's overhead on a warm call — the
 * provider's call minus a bare SDK client's call to an identical server, paired and interleaved
 * (the ratio column: whole provider call / bare call).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Logger } from '../backend/log/logger.js';
import { createService } from '../backend/service.js';
import { figure, type Figure } from './bench-kit.js';
import { median } from './stats.js';

const require = createRequire(import.meta.url);
const EVERYTHING = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const CHILD = fileURLToPath(new URL('./mcp-cold-child.js', import.meta.url));
const run = promisify(execFile);

async function coldCalls(rounds: number, mode?: 'login-shell'): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const { stdout } = await run(process.execPath, [CHILD, EVERYTHING, ...(mode ? [mode] : [])], { timeout: 30_000 });
    out.push((JSON.parse(stdout.trim()) as { ms: number }).ms);
  }
  return out;
}

async function warmOverhead(calls: number): Promise<{ overhead: number[]; bare: number[]; provider: number[] }> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-mcp-'));
  const service = await createService({ dataDir: path.join(root, 'data'), host: '127.0.0.1', logger: new Logger({ write: () => {} }) });
  const ws = (await service.stores.workspaces.create({ name: 'bench' })).id;
  writeFileSync(
    service.paths.globalMcp,
    JSON.stringify({ mcpServers: { ev: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } }),
  );
  const never = new AbortController().signal;
  const echo = (await service.tools.list(ws, never)).find((s) => s.name === 'ev__echo')!;
  const bare = new Client({ name: 'bench', version: '0' });
  await bare.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  const viaProvider: number[] = [];
  const viaBare: number[] = [];
  for (let i = 0; i < calls + 20; i++) {
    let t = performance.now();
    await service.tools.call(ws, echo, { message: 'warm' }, never);
    const p = performance.now() - t;
    t = performance.now();
    await bare.callTool({ name: 'echo', arguments: { message: 'warm' } });
    const b = performance.now() - t;
    if (i >= 20) {
      viaProvider.push(p);
      viaBare.push(b);
    }
  }
  await bare.close();
  await service.close();
  await service.mcp.shutdown();
  rmSync(root, { recursive: true, force: true });
  return { overhead: viaProvider.map((p, i) => p - viaBare[i]), bare: viaBare, provider: viaProvider };
}

export async function mcpFigures(): Promise<Figure[]> {
  const cold = await coldCalls(7);
  const viaShell = existsSync('/bin/bash') ? await coldCalls(7, 'login-shell') : [];
  const warm = await warmOverhead(300);
  return [
    figure(
      {
        group: 'mcp',
        name: 'first tool call, cold stdio server (spawn+init+list+call)',
        unit: 'ms',
        target: { on: 'median', op: '<=', value: 600 },
      },
      cold,
    ),
    // DESIGN 9 -shell-env: the desktop app's first call also asks the login shell for its PATH once.
    ...(viaShell.length
      ? [
          figure(
            {
              group: 'mcp',
              name: 'first tool call through a login-shell PATH lookup (bash -ilc, cold)',
              unit: 'ms',
              baseline: { name: 'cold call without -shell-env', median: median(cold), ratio: median(viaShell) / median(cold) },
              target: { on: 'median', op: '<=', value: 800 },
            },
            viaShell,
          ),
        ]
      : []),
    figure(
      {
        group: 'mcp',
        name: 'warm tool call, backend overhead beyond the server',
        unit: 'ms',
        baseline: { name: 'bare SDK client call', median: median(warm.bare), ratio: median(warm.provider) / median(warm.bare) },
        target: { on: 'median', op: '<=', value: 2 },
      },
      warm.overhead,
      'p25–p75',
    ),
  ];
}
