import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { constants } from 'node:os';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { LogBuffer } from '../../app/logs/log-buffer.js';
import type { BackendState } from '../../app/supervisor/backend-state.js';
import { BackendSupervisor } from '../../app/supervisor/backend-supervisor.js';
import { utilityProcessLauncher, type UtilityForkOptions, type UtilityProcessLike } from '../../app/supervisor/utility-process.js';
import { api, BACKEND_ENTRY, tempDir } from '../helpers/backend-process.js';

/**
 * A stand-in for Electron's `utilityProcess.fork` that is a real process: Node runs the module with
 * the given env, stdout/stderr piped and no IPC channel (a utility process has none); `spawn` and
 * `exit` (a code only, a signal's number when killed, as Chromium reports it) as Electron emits them.
 */
class FakeUtilityProcess extends EventEmitter implements UtilityProcessLike {
  readonly child;
  pid: number | undefined;
  constructor(modulePath: string, args: string[], options: UtilityForkOptions) {
    super();
    this.child = spawn(process.execPath, [modulePath, ...args], { env: options.env, stdio: options.stdio });
    this.child.once('spawn', () => {
      this.pid = this.child.pid;
      this.emit('spawn');
    });
    this.child.once('exit', (code, signal) => {
      this.pid = undefined;
      this.emit('exit', code ?? (signal ? constants.signals[signal] : 1));
    });
  }
  get stdout() {
    return this.child.stdout;
  }
  get stderr() {
    return this.child.stderr;
  }
  kill(): boolean {
    return this.child.kill('SIGTERM');
  }
}

const FAST = { backoffBaseMs: 20, backoffMaxMs: 200, readyTimeoutMs: 15_000, killTimeoutMs: 3000, healthPollMs: 20 };
const root = tempDir('svc-app-utility-');
const supervisors: BackendSupervisor[] = [];
const forks: { modulePath: string; args: string[]; options: UtilityForkOptions }[] = [];

function supervise() {
  const log = new LogBuffer();
  const sup = new BackendSupervisor({
    entry: BACKEND_ENTRY,
    dataDir: path.join(root, `data-${supervisors.length}`),
    log,
    preferredPort: 0,
    preferredSwapPort: 0,
    timing: FAST,
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    launch: utilityProcessLauncher((modulePath, args, options) => {
      forks.push({ modulePath, args, options });
      return new FakeUtilityProcess(modulePath, args, options);
    }),
  });
  supervisors.push(sup);
  return { sup, log };
}

const ready = async (sup: BackendSupervisor) => {
  const s = await sup.waitFor((st) => st.status === 'ready' || st.status === 'failed', 20_000);
  assert.equal(s.status, 'ready', JSON.stringify(s));
  return s as Extract<BackendState, { status: 'ready' }>;
};

describe('the supervisor through utilityProcess.fork (a fake backed by a real process)', () => {
  after(async () => {
    await Promise.all(supervisors.map((s) => s.stop()));
    rmSync(root, { recursive: true, force: true });
  });

  it('starts the real backend, reads readiness and the pairing code from the piped output', async () => {
    const { sup, log } = supervise();
    sup.start();
    const state = await ready(sup);
    assert.equal(state.external, false);
    assert.equal((await api(state.url, 'GET', '/health')).status, 200);
    const code = log.pairingCode ?? (await new Promise((r) => log.onPairingCode(r)));
    assert.match((code as { code: string }).code, /^\d{6}$/);
    const fork = forks.at(-1)!;
    assert.equal(fork.modulePath, BACKEND_ENTRY);
    assert.deepEqual(fork.options.stdio, ['ignore', 'pipe', 'pipe']);
    assert.equal(fork.options.env.ELECTRON_RUN_AS_NODE, undefined, 'a utility process needs no RunAsNode');
    assert.deepEqual(fork.args.slice(-2), ['-data', path.join(root, 'data-0')]);
  });

  it('restarts it after kill -9 and stops it cleanly (SIGTERM through kill())', async () => {
    const { sup, log } = supervise();
    sup.start();
    const first = await ready(sup);
    process.kill(first.pid, 'SIGKILL');
    const waiting = await sup.waitFor((s) => s.status === 'waiting-to-restart');
    assert.equal(waiting.status === 'waiting-to-restart' && waiting.reason, 'the backend exited with code 9 while running');
    const second = await ready(sup);
    assert.notEqual(second.pid, first.pid);
    assert.equal((await api(second.url, 'GET', '/health')).status, 200);
    await sup.stop();
    assert.equal(sup.state.status, 'stopped');
    assert.ok(log.lines().some((l) => l.line.includes('SIGTERM received, shutting down')));
    assert.throws(() => process.kill(second.pid, 0), /ESRCH/);
  });

  it('a fork that throws is a failed start, not a crash of the app', async () => {
    const log = new LogBuffer();
    const sup = new BackendSupervisor({
      entry: BACKEND_ENTRY,
      dataDir: path.join(root, 'never'),
      log,
      timing: { ...FAST, maxFailures: 1 },
      launch: utilityProcessLauncher(() => {
        throw new Error('utilityProcess.fork can only be called after the ready event');
      }),
    });
    sup.start();
    const state = await sup.waitFor((s) => s.status === 'failed');
    assert.equal(
      state.status === 'failed' && state.reason,
      'cannot start the backend: utilityProcess.fork can only be called after the ready event',
    );
  });
});
