/**
 * One cold first tool call, in a fresh process (so the lazy MCP SDK import counts, as it does for the
 * first tool call after a backend starts): list the workspace's tools (spawn + initialize + list) and
 * call `echo`. Prints the milliseconds as JSON. Used by mcp-bench.ts. With `login-shell`, the command
 * is looked up on the PATH of a bash login shell first (-shell-env), which the timing includes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Logger } from '../backend/log/logger.js';
import { createService } from '../backend/service.js';

const [everything, mode] = process.argv.slice(2);
const root = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-mcp-'));
// `login-shell`: as the desktop app starts the backend (-shell-env) with a bare PATH; the server's
// command is found only on the PATH a real bash login shell builds from its profile.
const loginShell = mode === 'login-shell';
let command = process.execPath;
let args = [everything, 'stdio'];
let env: NodeJS.ProcessEnv = process.env;
if (loginShell) {
  const bin = path.join(root, 'brew', 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'bench-everything'), `#!/bin/sh\nexec "${process.execPath}" "${everything}" stdio\n`, { mode: 0o755 });
  writeFileSync(path.join(root, '.bash_profile'), `export PATH="${bin}:$PATH"\n`);
  command = 'bench-everything';
  args = [];
  env = { HOME: root, SHELL: '/bin/bash', PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' };
}
const service = await createService({
  dataDir: path.join(root, 'data'),
  host: '127.0.0.1',
  logger: new Logger({ write: () => {} }),
  env,
  shellEnv: loginShell,
});
const ws = (await service.stores.workspaces.create({ name: 'bench' })).id;
writeFileSync(service.paths.globalMcp, JSON.stringify({ mcpServers: { ev: { command, args } } }));
const never = new AbortController().signal;
const t0 = performance.now();
const specs = await service.tools.list(ws, never);
const echo = specs.find((s) => s.name === 'ev__echo');
if (!echo) throw new Error(`no ev__echo among ${specs.map((s) => s.name).join(', ')}`);
const outcome = await service.tools.call(ws, echo, { message: 'cold' }, never);
const ms = performance.now() - t0;
if (!outcome.ok) throw new Error(outcome.content);
await service.close();
await service.mcp.shutdown();
rmSync(root, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ ms })}\n`);
