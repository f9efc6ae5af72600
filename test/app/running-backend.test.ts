import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { readLiveInstance } from '../../backend/data/instance-lock.js';
import { LogBuffer } from '../../app/logs/log-buffer.js';
import type { BackendState } from '../../app/supervisor/backend-state.js';
import { BackendSupervisor } from '../../app/supervisor/backend-supervisor.js';
import { findRunningBackend } from '../../app/supervisor/running-backend.js';
import { api, BACKEND_ENTRY, BackendProcess, tempDir } from '../helpers/backend-process.js';

const root = tempDir('svc-app-running-');
const cleanup: (() => Promise<unknown>)[] = [];

async function lockRecorded(dataDir: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await readLiveInstance(dataDir))?.url && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

describe('the app and a backend already running for its data folder', () => {
  after(async () => {
    for (const c of cleanup) await c();
    rmSync(root, { recursive: true, force: true });
  });

  it('finds nothing for an empty folder or a stale lock', async () => {
    assert.equal(await findRunningBackend(path.join(root, 'nothing')), null);
    const dataDir = path.join(root, 'stale');
    const proc = await BackendProcess.start({ dataDir });
    await lockRecorded(dataDir);
    await proc.kill();
    assert.equal(await findRunningBackend(dataDir), null);
  });

  it('connects to it instead of starting another, says so, and starts its own once it is gone', async () => {
    const dataDir = path.join(root, 'shared');
    const headless = await BackendProcess.start({ dataDir });
    cleanup.push(() => headless.stop());
    await lockRecorded(dataDir);
    const log = new LogBuffer();
    const states: BackendState[] = [];
    const sup = new BackendSupervisor({
      entry: BACKEND_ENTRY,
      dataDir,
      log,
      preferredPort: 0,
      preferredSwapPort: 0,
      timing: { externalPollMs: 50, healthPollMs: 20, backoffBaseMs: 20 },
      findRunning: () => findRunningBackend(dataDir),
    });
    cleanup.push(() => sup.stop());
    sup.onState((s) => states.push(s));
    sup.start();
    const state = await sup.waitFor((s) => s.status === 'ready' || s.status === 'failed');
    assert.deepEqual(state.status === 'ready' && { url: state.url, pid: state.pid, external: state.external, swap: state.swapUrl }, {
      url: headless.url,
      pid: headless.child.pid,
      external: true,
      swap: headless.swapUrl,
    });
    assert.equal(states.filter((s) => s.status === 'starting').length, 0, 'no second backend was started');
    assert.ok(
      log
        .lines()
        .some(
          (l) => l.stream === 'supervisor' && l.line.includes(`a backend is already running for ${dataDir} (pid ${headless.child.pid}`),
        ),
    );
    // stop() leaves a backend the app did not start alone.
    await sup.stop();
    assert.equal((await api(headless.url, 'GET', '/health')).status, 200);

    // Started again with the headless backend gone (crashed): the app runs its own on the folder.
    sup.start();
    await sup.waitFor((s) => s.status === 'ready');
    await headless.kill();
    const own = await sup.waitFor((s) => s.status === 'ready' && !s.external, 30_000);
    assert.equal(own.status === 'ready' && own.external, false);
    assert.ok(
      log.lines().some((l) => l.line.includes(`the backend outside the app (pid ${headless.child.pid}) is gone; starting our own`)),
    );
  });
});
