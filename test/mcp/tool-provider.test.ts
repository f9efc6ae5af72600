import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ToolSpec } from '../../backend/tools/tool-source.js';
import { createService, type Service } from '../../backend/service.js';
import { Logger } from '../../backend/log/logger.js';
import { tempDir } from '../helpers/backend-process.js';
import { everythingStdio, FILESYSTEM, isAlive, skillDoc, startEverythingHttp, waitFor } from './mcp-test-kit.js';

let root: string;
let service: Service;
let ws: string;
let other: string;
let shared: string;
const never = new AbortController().signal;
const http: { stop: () => void }[] = [];

const find = (specs: ToolSpec[], name: string) => {
  const spec = specs.find((s) => s.name === name);
  assert.ok(spec, `${name} offered; got ${specs.map((s) => s.name).join(', ')}`);
  return spec;
};
const writeJson = (file: string, value: unknown) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
};
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const status = async (id?: string) => Object.fromEntries((await service.mcp.status(id)).map((s) => [s.name, s]));

before(async () => {
  root = tempDir('svc-mcp-');
  shared = path.join(root, 'shared');
  mkdirSync(shared);
  writeFileSync(path.join(shared, 'hello.txt'), 'hello from the filesystem server');
  writeFileSync(path.join(shared, 'big.txt'), 'é'.repeat(150_000));
  service = await createService({
    dataDir: path.join(root, 'data'),
    host: '127.0.0.1',
    logger: new Logger({ write: () => {} }),
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', SERVICE_TOOL_TIMEOUT_MS: '1500' },
  });
  ws = (await service.stores.workspaces.create({ name: 'one' })).id;
  other = (await service.stores.workspaces.create({ name: 'two' })).id;
  writeJson(service.paths.globalMcp, {
    mcpServers: {
      ev: everythingStdio({ env: { WHO: 'global' } }),
      files: { command: process.execPath, args: [FILESYSTEM, shared], approval: 'auto' },
      missing: { command: 'no-such-command-for-mcp-tests' },
      off: everythingStdio({ disabled: true }),
      crashes: {
        command: process.execPath,
        args: ['-e', 'console.error("config file broken"); console.error("giving up"); process.exit(3)'],
      },
    },
  });
  writeJson(service.paths.workspaceMcp(ws), {
    mcpServers: { ev: everythingStdio({ env: { WHO: 'workspace' }, always_allow: ['echo'] }) },
  });
  await service.stores.skills.put(
    'pdf-forms',
    skillDoc('pdf-forms', 'Fill in PDF forms. Use when the user sends a PDF form.', 'Step 1: read the form.'),
  );
});

after(async () => {
  await service.close();
  await service.mcp.shutdown();
  for (const h of http) h.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('tool provider over real MCP servers', () => {
  test('servers start on first use, tools are offered as <server>__<tool> with approvals from the config', async () => {
    assert.equal((await status(ws)).ev.state, 'stopped', 'nothing runs before a turn needs it');
    const specs = await service.tools.list(ws, never);
    assert.equal(find(specs, 'ev__echo').needsApproval, false, 'always_allow');
    assert.equal(find(specs, 'ev__get-sum').needsApproval, true, 'default is ask');
    assert.equal(find(specs, 'files__read_text_file').needsApproval, false, 'approval auto');
    assert.ok(specs.every((s) => /^[A-Za-z0-9_-]{1,64}$/.test(s.name)));
    assert.equal(new Set(specs.map((s) => s.name)).size, specs.length);
    const st = await status(ws);
    assert.equal(st.ev.state, 'ready');
    assert.equal(st.ev.source, 'workspace');
    assert.ok(st.ev.tools.some((t: { name: string }) => t.name === 'get-env'));
    assert.equal(st.missing.state, 'failed');
    assert.equal(st.missing.error, `command not found: no-such-command-for-mcp-tests (searched ${process.env.PATH})`);
    assert.deepEqual([st.off.state, st.off.disabled, st.off.pid], ['stopped', true, null], 'a disabled server is never started');
    assert.ok(!specs.some((s) => s.server === 'off'));
    assert.equal(st.crashes.state, 'failed');
    assert.match(st.crashes.error!, /exited with code 3[\s\S]*config file broken[\s\S]*giving up/);
  });

  test('calls run on the workspace server (it wins over the global one) without ELECTRON_RUN_AS_NODE', async () => {
    const specs = await service.tools.list(ws, never);
    assert.deepEqual(await service.tools.call(ws, find(specs, 'ev__get-sum'), { a: 2, b: 40 }, never), {
      ok: true,
      content: 'The sum of 2 and 40 is 42.',
    });
    const env = JSON.parse((await service.tools.call(ws, find(specs, 'ev__get-env'), {}, never)).content);
    assert.equal(env.WHO, 'workspace');
    assert.equal(env.ELECTRON_RUN_AS_NODE, undefined);
    assert.equal(env.PATH, process.env.PATH);
    const globalEnv = JSON.parse(
      (await service.tools.call(other, find(await service.tools.list(other, never), 'ev__get-env'), {}, never)).content,
    );
    assert.equal(globalEnv.WHO, 'global', 'another workspace uses the global server');
  });

  test('the filesystem server reads a file; a big result is cut at 100 KB', async () => {
    const specs = await service.tools.list(ws, never);
    const read = find(specs, 'files__read_text_file');
    const small = await service.tools.call(ws, read, { path: path.join(shared, 'hello.txt') }, never);
    assert.deepEqual(small, { ok: true, content: 'hello from the filesystem server' });
    const big = await service.tools.call(ws, read, { path: path.join(shared, 'big.txt') }, never);
    assert.ok(big.ok);
    assert.ok(Buffer.byteLength(big.content) <= 100 * 1024, `${Buffer.byteLength(big.content)} bytes`);
    assert.match(big.content, /\[result cut: 300000 bytes/);
    assert.ok(!big.content.includes('\uFFFD'), 'no character split');
    const outside = await service.tools.call(ws, read, { path: '/etc/hostname' }, never);
    assert.equal(outside.ok, false, 'the server refuses paths outside its folder');
  });

  test('a call past the per-call timeout ends with tool_error and the server stays usable', async () => {
    const specs = await service.tools.list(ws, never);
    const slow = await service.tools.call(ws, find(specs, 'ev__trigger-long-running-operation'), { duration: 5, steps: 5 }, never);
    assert.deepEqual(slow, { ok: false, content: 'The tool call timed out after 1.5 s.', errorCode: 'tool_error' });
    assert.equal((await service.tools.call(ws, find(specs, 'ev__echo'), { message: 'still here' }, never)).content, 'Echo: still here');
  });

  test('a server killed mid-call ends that call with tool_error; the next call restarts it', async () => {
    const specs = await service.tools.list(ws, never);
    const pid = (await status(ws)).ev.pid!;
    const pending = service.tools.call(ws, find(specs, 'ev__trigger-long-running-operation'), { duration: 1, steps: 1 }, never);
    setTimeout(() => process.kill(-pid, 'SIGKILL'), 200);
    const outcome = await pending;
    assert.equal(outcome.ok, false);
    assert.equal(outcome.errorCode, 'tool_error');
    assert.match(outcome.content, /^The tool server ev stopped during the call: the server was stopped by SIGKILL/);
    assert.equal((await status(ws)).ev.state, 'failed');
    const again = await service.tools.call(ws, find(specs, 'ev__echo'), { message: 'back' }, never);
    assert.deepEqual(again, { ok: true, content: 'Echo: back' });
    const st = await status(ws);
    assert.equal(st.ev.state, 'ready');
    assert.notEqual(st.ev.pid, pid);
    assert.equal(isAlive(pid), false);
  });

  test('remember writes always_allow into the file that holds the server, keeping the rest', async () => {
    const specs = await service.tools.list(ws, never);
    await service.tools.remember(ws, find(specs, 'ev__get-sum'));
    assert.deepEqual(readJson(service.paths.workspaceMcp(ws)).mcpServers.ev.always_allow, ['echo', 'get-sum']);
    const globalSpecs = await service.tools.list(other, never);
    await service.tools.remember(other, find(globalSpecs, 'ev__get-env'));
    const global = readJson(service.paths.globalMcp);
    assert.deepEqual(global.mcpServers.ev.always_allow, ['get-env']);
    assert.deepEqual(global.mcpServers.ev.env, { WHO: 'global' });
    assert.equal(find(await service.tools.list(ws, never), 'ev__get-sum').needsApproval, false);
    assert.equal(find(await service.tools.list(other, never), 'ev__get-env').needsApproval, false);
    assert.equal(find(await service.tools.list(other, never), 'ev__get-sum').needsApproval, true);
  });

  test('Streamable HTTP with headers and legacy SSE servers', async () => {
    const streamable = await startEverythingHttp('streamableHttp');
    const sse = await startEverythingHttp('sse');
    http.push(streamable, sse);
    writeJson(service.paths.workspaceMcp(other), {
      mcpServers: {
        remote: { type: 'http', url: streamable.url, headers: { 'X-Team': 'a' } },
        legacy: { type: 'sse', url: sse.url },
      },
    });
    const specs = await service.tools.list(other, never);
    assert.deepEqual(await service.tools.call(other, find(specs, 'remote__echo'), { message: 'over http' }, never), {
      ok: true,
      content: 'Echo: over http',
    });
    assert.deepEqual(await service.tools.call(other, find(specs, 'legacy__get-sum'), { a: 1, b: 2 }, never), {
      ok: true,
      content: 'The sum of 1 and 2 is 3.',
    });
    const st = await status(other);
    assert.equal(st.remote.transport, 'http');
    assert.equal(st.legacy.transport, 'sse');
    assert.equal(st.legacy.state, 'ready');
  });

  test('skills: the catalog in the system prompt, activate_skill with an enum, the body kept on compaction', async () => {
    const prompt = await service.tools.systemPrompt(ws);
    assert.match(prompt, /- pdf-forms: Fill in PDF forms\. Use when the user sends a PDF form\./);
    assert.match(prompt, /call the tool `activate_skill`/);
    assert.match(prompt, /- missing: command not found: no-such-command-for-mcp-tests/);
    const spec = find(await service.tools.list(ws, never), 'activate_skill');
    assert.equal(spec.needsApproval, false);
    assert.deepEqual((spec.inputSchema.properties as { name: { enum: string[] } }).name.enum, ['pdf-forms']);
    const loaded = await service.tools.call(ws, spec, { name: 'pdf-forms' }, never);
    assert.equal(loaded.ok, true);
    assert.equal(loaded.keepOnCompaction, true);
    assert.match(loaded.content, /^<skill name="pdf-forms">[\s\S]*Step 1: read the form\.\n<\/skill>$/);
    assert.doesNotMatch(loaded.content, /description:/, 'front matter is not repeated');
    const unknown = await service.tools.call(ws, spec, { name: '../etc' }, never);
    assert.equal(unknown.ok, false);
    assert.match(unknown.content, /Available: pdf-forms/);
  });

  test('an edited entry restarts its server; stop at shutdown leaves no process', async () => {
    const before = (await status(ws)).ev.pid!;
    writeJson(service.paths.workspaceMcp(ws), { mcpServers: { ev: everythingStdio({ env: { WHO: 'edited' } }) } });
    const specs = await service.tools.list(ws, never);
    const env = JSON.parse((await service.tools.call(ws, find(specs, 'ev__get-env'), {}, never)).content);
    assert.equal(env.WHO, 'edited');
    await waitFor('the superseded server to stop', () => !isAlive(before));
    const pids = (await service.mcp.status(ws)).map((s) => s.pid).filter((p): p is number => p !== null);
    assert.ok(pids.length >= 2);
    await service.mcp.shutdown();
    await waitFor('every server to stop', () => pids.every((p) => !isAlive(p)));
  });
});
