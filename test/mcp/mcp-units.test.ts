import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { describe, test } from 'node:test';
import { McpConnection } from '../../backend/mcp/mcp-connection.js';
import { describeExit } from '../../backend/mcp/mcp-errors.js';
import { McpFileSchema } from '../../backend/mcp/mcp-api.js';
import { resolveEntry } from '../../backend/mcp/server-config.js';
import { modelToolName } from '../../backend/mcp/tool-names.js';
import { cutResult, resultText } from '../../backend/mcp/tool-result.js';
import { skillCatalog } from '../../backend/skills/skill-tools.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { everythingStdio, freePort, isAlive, startEverythingHttp, waitFor } from './mcp-test-kit.js';

const connect = (entry: Record<string, unknown>, startTimeoutMs = 10_000, idleMs = 60_000) =>
  new McpConnection(resolveEntry('srv', entry, 'global', 'global'), {
    env: process.env,
    idleMs,
    startTimeoutMs,
    callTimeoutMs: 5_000,
    log: () => {},
  });

describe('tool names', () => {
  test('<server>__<tool>, other characters become _, at most 64, unique', () => {
    const taken = new Set<string>();
    assert.equal(modelToolName('my server', 'read.file', taken), 'my_server__read_file');
    assert.equal(modelToolName('my.server', 'read file', taken), 'my_server__read_file_2');
    const long = modelToolName('s'.repeat(40), 't'.repeat(40), taken);
    assert.equal(long.length, 64);
    const clash = modelToolName('s'.repeat(40), `${'t'.repeat(40)}x`, taken);
    assert.equal(clash.length, 64);
    assert.match(clash, /_2$/);
    assert.equal(modelToolName('ünï', 'ç', taken), '_n____');
  });
});

describe('results', () => {
  test('cut at 100 KB on a character boundary, with a note', () => {
    assert.equal(cutResult('short'), 'short');
    const cut = cutResult('€'.repeat(50_000));
    assert.ok(Buffer.byteLength(cut) <= 100 * 1024);
    assert.match(cut, /\[result cut: 150000 bytes, only the first 102400 bytes are shown\]$/);
    assert.ok(!cut.includes('\uFFFD'));
  });

  test('content items become text; images are described, not inlined', () => {
    const text = resultText({
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'resource', resource: { uri: 'file:///x', text: 'inside' } },
      ],
    });
    assert.equal(text, 'a\n[image image/png, 3 bytes, not shown]\ninside');
    assert.equal(resultText({ content: [], structuredContent: { n: 1 } }), '{"n":1}');
  });
});

describe('configuration', () => {
  test('approval and always_allow are validated and naming the field', () => {
    const bad = McpFileSchema.safeParse({ mcpServers: { a: { command: 'x', approval: 'never' } } });
    assert.equal(bad.success, false);
    assert.match(JSON.stringify(bad.error!.issues), /approval must be \\"auto\\" or \\"ask\\"/);
    const list = McpFileSchema.safeParse({ mcpServers: { a: { url: 'http://x/mcp', always_allow: 'echo' } } });
    assert.equal(list.success, false);
    assert.ok(McpFileSchema.safeParse({ mcpServers: { a: { command: 'x', approval: 'auto', always_allow: ['echo'] } } }).success);
  });

  test('an approval edit does not change the running identity; a command edit does', () => {
    const a = resolveEntry('x', { command: 'c', args: ['1'] }, 'global', 'global');
    const b = resolveEntry('x', { command: 'c', args: ['1'], always_allow: ['t'], approval: 'auto' }, 'global', 'global');
    const c = resolveEntry('x', { command: 'c', args: ['2'] }, 'global', 'global');
    assert.equal(a.key, b.key);
    assert.notEqual(a.key, c.key);
    assert.equal(resolveEntry('x', { type: 'sse', url: 'http://h/sse' }, 'global', 'global').transport, 'sse');
    assert.equal(resolveEntry('x', { url: 'http://h/mcp' }, 'global', 'global').transport, 'http');
  });

  test('skill catalog lists only usable skills', () => {
    assert.equal(skillCatalog([]), '');
    const text = skillCatalog([
      { name: 'a', description: 'Does A.\nWhen asked.', errors: [] },
      { name: 'broken', description: null, errors: ['no front matter'] },
    ]);
    assert.match(text, /- a: Does A\. When asked\./);
    assert.doesNotMatch(text, /broken/);
  });
});

describe('failures in words', () => {
  test('exit codes and signals', () => {
    assert.equal(describeExit('x', { code: 1, signal: null }, []).message, 'the server exited with code 1');
    assert.equal(
      describeExit('x', { code: 137, signal: null }, ['boom']).message,
      'the server was killed by signal 9; last stderr lines:\nboom',
    );
    assert.equal(
      describeExit('x', { code: null, signal: null, spawnError: Object.assign(new Error(), { code: 'ENOENT' }) }, []).message,
      'command not found: x',
    );
  });

  test('HTTP 401 from a remote server', async () => {
    const server: Server = createServer((_req, res) => res.writeHead(401, { 'content-type': 'text/plain' }).end('no'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
    try {
      const conn = connect({ type: 'http', url, headers: { Authorization: 'Bearer wrong' } });
      await conn.ensureStarted();
      assert.equal(conn.state, 'failed');
      assert.equal(conn.error, `HTTP 401 (unauthorized: check the headers) from ${url}`);
    } finally {
      server.close();
    }
  });

  test('connection refused and a server that never answers initialize', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const refused = connect({ type: 'http', url });
    await refused.ensureStarted();
    assert.equal(refused.error, `cannot connect to ${url} (connection refused)`);
    const silent = connect({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }, 800);
    await silent.ensureStarted();
    assert.equal(silent.state, 'failed');
    assert.equal(silent.error, 'timeout: the server did not answer within 0.8 s');
    assert.equal(silent.pid, undefined, 'the silent server was stopped');
  });

  test('HTTP errors never show the query string or credentials of the URL', async () => {
    const conn = connect({ type: 'http', url: `http://user:pw@127.0.0.1:${await freePort()}/mcp?token=SECRET` });
    await conn.ensureStarted();
    assert.equal(conn.state, 'failed');
    assert.doesNotMatch(conn.error!, /SECRET|pw@/);
  });
});

describe('lifecycle', () => {
  test('an idle server is stopped; the next call starts it again', async () => {
    const conn = connect(everythingStdio(), 10_000, 400);
    const never = new AbortController().signal;
    assert.deepEqual(await conn.call('echo', { message: 'one' }, never), { ok: true, content: 'Echo: one' });
    const pid = conn.pid!;
    await waitFor('the idle stop', () => conn.state === 'stopped' && !isAlive(pid));
    assert.deepEqual(await conn.call('echo', { message: 'two' }, never), { ok: true, content: 'Echo: two' });
    assert.notEqual(conn.pid, pid);
    await conn.stop();
  });

  test('a remote server that went away fails the call; once it is back the next call reconnects', async () => {
    const first = await startEverythingHttp('streamableHttp');
    const port = Number(new URL(first.url).port);
    const conn = connect({ type: 'http', url: first.url });
    const never = new AbortController().signal;
    let second: Awaited<ReturnType<typeof startEverythingHttp>> | undefined;
    try {
      assert.deepEqual(await conn.call('echo', { message: 'a' }, never), { ok: true, content: 'Echo: a' });
      first.stop();
      await waitFor('the server to exit', () => first.child.exitCode !== null || first.child.signalCode !== null);
      const lost = await conn.call('echo', { message: 'b' }, never);
      assert.equal(lost.ok, false);
      assert.match(lost.content, new RegExp(`^The tool server srv failed during the call: cannot connect to http://127.0.0.1:${port}/mcp`));
      assert.equal(conn.state, 'failed');
      second = await startEverythingHttp('streamableHttp', port);
      assert.deepEqual(await conn.call('echo', { message: 'c' }, never), { ok: true, content: 'Echo: c' });
    } finally {
      await conn.stop();
      first.stop();
      second?.stop();
    }
  });

  test('Streamable HTTP sends the configured headers with every request', async () => {
    const server = await startEverythingHttp('streamableHttp');
    const relay = await RecordingRelay.start(new URL(server.url).origin);
    const conn = connect({ type: 'http', url: `${relay.url}/mcp`, headers: { 'X-Team': 'blue', Authorization: 'Bearer t0k' } });
    try {
      assert.deepEqual(await conn.call('get-sum', { a: 1, b: 1 }, new AbortController().signal), {
        ok: true,
        content: 'The sum of 1 and 1 is 2.',
      });
      const posts = relay.requests.filter((r) => r.method === 'POST');
      assert.ok(posts.length >= 3, 'initialize, initialized, tools/list, tools/call');
      for (const r of posts) {
        assert.equal(r.headers['x-team'], 'blue');
        assert.equal(r.headers.authorization, 'Bearer t0k');
      }
    } finally {
      await conn.stop();
      await relay.stop();
      server.stop();
    }
  });
});
