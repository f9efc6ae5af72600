/**
 * One cold first tool call, in a fresh process (so the lazy MCP SDK import counts, as it does for the
 * first tool call after a backend starts): list the workspace's tools (spawn + initialize + list) and
 * call `echo`. Prints the milliseconds as JSON. Used by mcp-bench.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Logger } from '../backend/log/logger.js';
import { createService } from '../backend/service.js';

const [everything] = process.argv.slice(2);
const root = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-mcp-'));
const service = await createService({ dataDir: path.join(root, 'data'), host: '127.0.0.1', logger: new Logger({ write: () => {} }) });
const ws = (await service.stores.workspaces.create({ name: 'bench' })).id;
writeFileSync(service.paths.globalMcp, JSON.stringify({ mcpServers: { ev: { command: process.execPath, args: [everything, 'stdio'] } } }));
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
