import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { LogBuffer } from '../../app/logs/log-buffer.js';
import type { BackendState } from '../../app/supervisor/backend-state.js';
import { BackendSupervisor, type SupervisorOptions } from '../../app/supervisor/backend-supervisor.js';
import { isPortFree } from '../../app/supervisor/ports.js';
import { api, BACKEND_ENTRY, tempDir } from '../helpers/backend-process.js';

const FAST = {
  backoffBaseMs: 20,
  backoffMaxMs: 200,
  healthyResetMs: 60_000,
  readyTimeoutMs: 15_000,
  killTimeoutMs: 3000,
  healthPollMs: 20,
};
const root = tempDir('svc-app-sup-');
let dirs = 0;
const supervisors: BackendSupervisor[] = [];

function supervise(options: Partial<SupervisorOptions> = {}): { sup: BackendSupervisor; log: LogBuffer; states: BackendState[] } {
  const log = new LogBuffer();
  const sup = new BackendSupervisor({
    entry: BACKEND_ENTRY,
    dataDir: path.join(root, `data-${++dirs}`),
    log,
    preferredPort: 0,
    preferredSwapPort: 0,
    timing: FAST,
    ...options,
  });
  const states: BackendState[] = [];
  sup.onState((s) => states.push(s));
  supervisors.push(sup);
  return { sup, log, states };
}

const ready = (sup: BackendSupervisor) =>
  sup
    .waitFor((s) => s.status === 'ready' || s.status === 'failed', 20_000)
    .then((s) => {
      assert.equal(s.status, 'ready', JSON.stringify(s));
      return s as Extract<BackendState, { status: 'ready' }>;
    });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

describe('backend supervisor (real backend)', () => {
  after(async () => {
    await Promise.all(supervisors.map((s) => s.stop()));
    rmSync(root, { recursive: true, force: true });
  });

  it('starts the backend, waits for readiness and reads its pairing code from the buffer', async () => {
    const { sup, log } = supervise();
    sup.start();
    const state = await ready(sup);
    assert.match(state.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(state.swapUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await api(state.url, 'GET', '/health')).status, 200);
    const code = log.pairingCode ?? (await new Promise((r) => log.onPairingCode(r)));
    assert.match((code as { code: string }).code, /^\d{6}$/);
    // The code the app shows is one the backend accepts.
    const claim = await api(state.url, 'POST', '/api/pairing/claim', { body: { pairing_code: log.pairingCode!.code } });
    assert.equal(claim.status, 200, JSON.stringify(claim.body));
    await new Promise<void>((resolve) => (log.pairingCode === null ? resolve() : log.onPairingCode((c) => c === null && resolve())));
    assert.equal(log.pairingCode, null, 'a used code is no longer shown');
    assert.ok(log.lines().some((l) => l.stream === 'stdout' && l.line.startsWith('listening on ')));
  });

  it('restarts the backend after kill -9 and it is healthy again', async () => {
    const { sup, states, log } = supervise();
    sup.start();
    const first = await ready(sup);
    process.kill(first.pid, 'SIGKILL');
    await sup.waitFor((s) => s.status === 'waiting-to-restart');
    const second = await ready(sup);
    assert.notEqual(second.pid, first.pid);
    assert.equal((await api(second.url, 'GET', '/health')).status, 200);
    assert.equal(second.port, first.port, 'the same port is reused when it is free again');
    const waiting = states.find((s) => s.status === 'waiting-to-restart');
    assert.deepEqual(waiting && { delay: waiting.delayMs, reason: waiting.reason }, {
      delay: FAST.backoffBaseMs,
      reason: 'the backend was killed by SIGKILL while running',
    });
    assert.ok(log.lines().some((l) => l.stream === 'supervisor' && l.line.includes('killed by SIGKILL')));
  });

  it('uses the preferred port when it is free', async () => {
    const probe = createServer();
    const port = await new Promise<number>((r) => probe.listen(0, '127.0.0.1', () => r((probe.address() as { port: number }).port)));
    await new Promise((r) => probe.close(r));
    const { sup } = supervise({ preferredPort: port });
    sup.start();
    assert.equal((await ready(sup)).port, port);
  });

  it('moves to another port when 8080 is taken', async (t) => {
    let blocker: Server | undefined;
    if (await isPortFree(8080)) {
      blocker = createServer();
      const bound = await new Promise<boolean>((r) => {
        blocker!.once('error', () => r(false));
        blocker!.listen(8080, '127.0.0.1', () => r(true));
      });
      if (!bound) return t.skip('port 8080 can neither be bound nor is it taken');
    }
    try {
      const { sup } = supervise({ preferredPort: 8080 });
      sup.start();
      const state = await ready(sup);
      assert.notEqual(state.port, 8080);
      assert.equal((await api(state.url, 'GET', '/health')).status, 200);
    } finally {
      await new Promise((r) => (blocker ? blocker.close(r) : r(undefined)));
    }
  });

  it('gives up after repeated start failures and says why', async () => {
    const notADir = path.join(root, 'a-file');
    writeFileSync(notADir, 'not a directory');
    const { sup, states } = supervise({ dataDir: notADir, timing: { ...FAST, maxFailures: 3 } });
    sup.start();
    const state = await sup.waitFor((s) => s.status === 'failed' || s.status === 'ready', 20_000);
    assert.equal(state.status, 'failed');
    if (state.status !== 'failed') return;
    assert.equal(state.attempts, 3);
    assert.equal(state.exitCode, 1);
    assert.match(state.reason, /exited with code 1 before it was ready/);
    assert.ok(
      state.lastLines.some((l) => l.includes('cannot use data directory')),
      state.lastLines.join('\n'),
    );
    assert.equal(states.filter((s) => s.status === 'starting').length, 3);
    assert.deepEqual(
      states.filter((s) => s.status === 'waiting-to-restart').map((s) => (s.status === 'waiting-to-restart' ? s.delayMs : 0)),
      [20, 40],
      'backoff doubles',
    );
    // Once the cause is fixed, "Restart backend" brings it back from the failed state.
    rmSync(notADir);
    await sup.restart();
    assert.equal((await api((await ready(sup)).url, 'GET', '/health')).status, 200);
  });

  it('reports a start that never becomes ready, with the last lines, and kills it', async () => {
    const silent = fileURLToPath(new URL('./fixtures/silent-backend.js', import.meta.url));
    const { sup, states } = supervise({ entry: silent, timing: { ...FAST, readyTimeoutMs: 500, maxFailures: 1 } });
    sup.start();
    const state = await sup.waitFor((s) => s.status === 'failed', 10_000);
    if (state.status !== 'failed') return;
    assert.equal(state.reason, 'the backend was not ready within 500 ms (no "listening on" line)');
    assert.equal(state.exitCode, null);
    assert.deepEqual(state.lastLines, ['loading something slow']);
    const started = states.find((s) => s.status === 'starting');
    assert.ok(started);
    assert.equal(sup.pid === undefined || !alive(sup.pid), true, 'the hung process was stopped');
  });

  it('stops cleanly with no process left', async () => {
    const { sup, log } = supervise();
    sup.start();
    const { pid } = await ready(sup);
    await sup.stop();
    assert.equal(sup.state.status, 'stopped');
    assert.equal(alive(pid), false);
    assert.ok(
      log.lines().some((l) => l.line.includes('SIGTERM received, shutting down')),
      'the backend shut down gracefully',
    );
  });
});
