import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { instanceLockPath, readLiveInstance } from '../../backend/data/instance-lock.js';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';

const procs: BackendProcess[] = [];
const root = tempDir('svc-lock-');
let dirs = 0;
const freshDir = () => path.join(root, `data-${++dirs}`);

async function start(dataDir: string, waitForListening = true): Promise<BackendProcess> {
  const proc = await BackendProcess.start({ dataDir, waitForListening, timeoutMs: 20_000 });
  procs.push(proc);
  return proc;
}

/** A pid that belonged to a process that has exited (what a crash leaves in the lock). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

const lockOf = (dataDir: string) => JSON.parse(readFileSync(instanceLockPath(dataDir), 'utf8'));

/** The addresses are recorded just after the listeners are up. */
async function lockWithUrl(dataDir: string): Promise<{ pid: number; url: string; swap_url: string | null }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lock = existsSync(instanceLockPath(dataDir)) ? lockOf(dataDir) : null;
    if (lock?.url || Date.now() > deadline) return lock;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('one backend per data directory (selfhost/instance.lock)', () => {
  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    rmSync(root, { recursive: true, force: true });
  });

  it('records pid and addresses; a second backend on the folder exits 1 naming the running one', async () => {
    const dataDir = freshDir();
    const first = await start(dataDir);
    const lock = await lockWithUrl(dataDir);
    assert.equal(lock.pid, first.child.pid);
    assert.equal(lock.url, first.url);
    assert.equal(lock.swap_url, first.swapUrl);
    assert.equal(statSync(instanceLockPath(dataDir)).mode & 0o777, 0o600);
    assert.deepEqual(await readLiveInstance(dataDir), lock);

    const second = await start(dataDir, false);
    assert.equal(await second.exited, 1);
    const message = second.lines.filter((l) => l.stream === 'stderr').map((l) => l.line);
    assert.deepEqual(message, [
      `error: another backend is already running on the data directory ${dataDir} (pid ${first.child.pid}, ${first.url}); ` +
        'stop it first or use another -data directory',
    ]);
    assert.equal(
      second.lines.some((l) => l.line.startsWith('pairing code:')),
      false,
      'the second never touched the pairing state',
    );
    // The first is unaffected and still owns the lock.
    assert.equal((await fetch(`${first.url}/health`)).status, 200);
    assert.equal(lockOf(dataDir).pid, first.child.pid);
  });

  it('removes the lock on a clean stop', async () => {
    const dataDir = freshDir();
    const proc = await start(dataDir);
    assert.equal((await lockWithUrl(dataDir)).url, proc.url);
    assert.equal(await proc.stop('SIGTERM'), 0);
    assert.equal(existsSync(instanceLockPath(dataDir)), false);
    assert.equal(await readLiveInstance(dataDir), null);
  });

  it('takes over a stale lock left by a crash (kill -9) or naming a dead process', async () => {
    const dataDir = freshDir();
    const crashed = await start(dataDir);
    await crashed.kill();
    assert.equal(lockOf(dataDir).pid, crashed.child.pid, 'a crash leaves the lock behind');
    assert.equal(await readLiveInstance(dataDir), null, 'and it reads as stale');
    const next = await start(dataDir);
    assert.equal(lockOf(dataDir).pid, next.child.pid);
    await next.stop();

    const other = freshDir();
    mkdirSync(path.join(other, 'selfhost'), { recursive: true });
    writeFileSync(
      instanceLockPath(other),
      JSON.stringify({ pid: deadPid(), url: 'http://127.0.0.1:1', started_at: '2026-01-01T00:00:00Z' }),
    );
    const proc = await start(other);
    assert.equal((await lockWithUrl(other)).url, proc.url);
  });

  it('an old unreadable lock is stale too; a fresh empty one (a racing starter) is waited for', async () => {
    const dataDir = freshDir();
    mkdirSync(path.join(dataDir, 'selfhost'), { recursive: true });
    writeFileSync(instanceLockPath(dataDir), '{"pid": tor');
    const old = new Date(Date.now() - 60_000);
    utimesSync(instanceLockPath(dataDir), old, old);
    const proc = await start(dataDir);
    assert.equal(lockOf(dataDir).pid, proc.child.pid);
  });

  it('of two backends started at once on one folder, exactly one runs', async () => {
    const dataDir = freshDir();
    const [a, b] = await Promise.all([start(dataDir, false), start(dataDir, false)]);
    await Promise.any([a.exited, b.exited]);
    const [loser, winner] = a.exitCode === null ? [b, a] : [a, b];
    assert.equal(loser.exitCode, 1, loser.output());
    assert.match(loser.output(), /another backend is already running on the data directory/);
    await winner.waitForLine(/^listening on /, 20_000);
    assert.equal(winner.exitCode, null, 'the other one keeps running');
    assert.equal(lockOf(dataDir).pid, winner.child.pid);
  });
});
