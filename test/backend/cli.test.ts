import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { api, BACKEND_ENTRY, BackendProcess, tempDir } from '../helpers/backend-process.js';
import { VERSION } from '../../backend/version.js';

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [BACKEND_ENTRY, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 10_000 });
}

describe('command line', () => {
  const procs: BackendProcess[] = [];
  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
  });

  it('-h and --help print the usage with every flag and exit 0', () => {
    for (const flag of ['-h', '--help', '-help']) {
      const r = run([flag]);
      assert.equal(r.status, 0, flag);
      for (const name of ['-port', '-host', '-data', '-mcp', '-model', '-swap-port', 'reset-pairing', 'version']) {
        assert.match(r.stdout, new RegExp(name), `${flag} usage mentions ${name}`);
      }
    }
  });

  it('an unknown flag is named, followed by the usage, exit 2', () => {
    const r = run(['-bogus', '1']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /flag provided but not defined: -bogus/);
    assert.match(r.stderr, /usage:/);
  });

  it('bad values are named with the rule, exit 2', () => {
    const cases: [string[], RegExp][] = [
      [['-port', 'abc'], /-port: must be a port number/],
      [['--port=70000'], /-port: must be a port number/],
      [['-swap-port', 'sometimes'], /-swap-port: must be a port number/],
      [['-model', 'nocolon'], /-model: must be <providerId>:<modelId>/],
      [['-mcp', 'ftp://x'], /-mcp: must be an absolute http\(s\) URL/],
      [['-allow-origin', 'http://x.test/path'], /-allow-origin/],
      [['-port'], /flag needs an argument: -port/],
      [['serve-forever'], /unknown command "serve-forever"/],
    ];
    for (const [args, re] of cases) {
      const r = run(args);
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, re, args.join(' '));
      assert.match(r.stderr, /usage:/);
    }
  });

  it('version prints the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.equal(VERSION, pkg.version);
    const r = run(['version']);
    assert.equal(r.status, 0);
    assert.equal(r.stdout.trim(), pkg.version);
  });

  it('double-dash and -flag=value spellings work, and -port 0 prints the actual port', async () => {
    const dir = path.join(tempDir(), 'data');
    const proc = new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [BACKEND_ENTRY, '--port=0', '--swap-port', 'off', `-data=${dir}`], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
        if (m) {
          fetch(`${m[1]}/health`)
            .then((r) => r.json())
            .then((body) => {
              child.kill('SIGTERM');
              assert.notEqual(m[2], '0');
              assert.doesNotMatch(out, /swap builder listening/, '-swap-port off disables the swap listener');
              resolve(JSON.stringify(body));
            }, reject);
        }
      });
      child.on('exit', (code) => {
        if (!/listening on/.test(out)) reject(new Error(`exited ${code}: ${out}`));
      });
    });
    assert.equal(await proc, '{"status":"ok"}');
  });

  it('a port in use gives one clear line naming the port and exit 1, no stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = run(['-port', String(port), '-swap-port', 'off', '-data', path.join(tempDir(), 'data')]);
      assert.equal(r.status, 1);
      assert.equal(r.stderr.trim(), `error: HTTP port ${port} on 127.0.0.1 is already in use`);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  it('SIGINT and SIGTERM close the listeners and exit 0 within 2 s', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const proc = await BackendProcess.start();
      procs.push(proc);
      // An open keep-alive connection must not hold the process up.
      await api(proc.url, 'GET', '/health');
      const started = Date.now();
      const code = await proc.stop(signal);
      assert.equal(code, 0, signal);
      assert.ok(Date.now() - started < 2000, `${signal} exit took ${Date.now() - started} ms`);
    }
  });

  it('reset-pairing forgets the credential; the next start logs a new code', async () => {
    const { startPaired } = await import('../helpers/backend-process.js');
    const { proc, credential } = await startPaired();
    procs.push(proc);
    await proc.stop();
    const r = run(['reset-pairing', '-data', proc.dataDir]);
    assert.equal(r.status, 0, r.stderr);
    const again = await BackendProcess.start({ dataDir: proc.dataDir });
    procs.push(again);
    await again.waitForLine(/^pairing code: \d{6} \(expires /);
    assert.equal((await api(again.url, 'GET', '/api/config/providers', { credential })).status, 401);
    assert.equal((await api(again.url, 'GET', '/api/pairing/status')).body.bound, false);
  });

  it('reset-pairing on a running service takes effect without a restart', async () => {
    const { startPaired } = await import('../helpers/backend-process.js');
    const { proc, credential } = await startPaired();
    procs.push(proc);
    const before = proc.lines.length;
    const r = run(['reset-pairing', '-data', proc.dataDir]);
    assert.equal(r.status, 0, r.stderr);
    await proc.waitForLine(/^pairing code: \d{6} \(expires /, 5000, before);
    assert.equal((await api(proc.url, 'GET', '/api/config/providers', { credential })).status, 401);
    assert.equal((await api(proc.url, 'GET', '/api/pairing/status')).body.bound, false);
  });
});
