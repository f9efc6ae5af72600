import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { LogBuffer } from '../../app/logs/log-buffer.js';
import { resetPairingForApp } from '../../app/pairing/reset-flow.js';
import type { BackendState } from '../../app/supervisor/backend-state.js';
import { BackendSupervisor } from '../../app/supervisor/backend-supervisor.js';
import { findRunningBackend } from '../../app/supervisor/running-backend.js';
import { readLiveInstance } from '../../backend/data/instance-lock.js';
import { api, BACKEND_ENTRY, startPaired, tempDir } from '../helpers/backend-process.js';

const root = tempDir('svc-app-reset-');
const cleanup: (() => Promise<unknown>)[] = [];

function supervise(dataDir: string, withFinder = false) {
  const log = new LogBuffer();
  const sup = new BackendSupervisor({
    entry: BACKEND_ENTRY,
    dataDir,
    log,
    preferredPort: 0,
    preferredSwapPort: 0,
    timing: { healthPollMs: 20, externalPollMs: 200 },
    findRunning: withFinder ? () => findRunningBackend(dataDir) : undefined,
  });
  cleanup.push(() => sup.stop());
  return { sup, log };
}

async function ready(sup: BackendSupervisor): Promise<Extract<BackendState, { status: 'ready' }>> {
  const s = await sup.waitFor((st) => st.status === 'ready' || st.status === 'failed', 20_000);
  assert.equal(s.status, 'ready', JSON.stringify(s));
  return s as Extract<BackendState, { status: 'ready' }>;
}

const claim = (url: string, code: string) =>
  api(url, 'POST', '/api/pairing/claim', { body: { pairing_code: code, display_name: 'Desktop app' } });

describe('"Reset pairing…" in the desktop app (real backend)', () => {
  after(async () => {
    for (const c of cleanup) await c();
    rmSync(root, { recursive: true, force: true });
  });

  it('a folder a browser paired: the app resets it, reads the new code from its log and pairs itself', async () => {
    const dataDir = path.join(root, 'paired-by-browser');
    const { sup, log } = supervise(dataDir);
    sup.start();
    const state = await ready(sup);
    const first = log.pairingCode ?? (await new Promise<{ code: string }>((r) => log.onPairingCode((c) => c && r(c))));
    const browser = await claim(state.url, first.code);
    assert.equal(browser.status, 200);
    await new Promise<void>((r) => (log.pairingCode === null ? r() : log.onPairingCode((c) => c === null && r())));
    assert.equal((await api(state.url, 'GET', '/api/pairing/status')).body.bound, true);

    const result = await resetPairingForApp({ dataDir, log, state: sup.state });
    assert.equal(result.external, false);
    assert.match(result.code?.code ?? '', /^\d{6}$/);
    assert.notEqual(result.code?.code, first.code);
    const app = await claim(state.url, result.code!.code);
    assert.equal(app.status, 200, JSON.stringify(app.body));
    assert.equal((await api(state.url, 'GET', '/api/config/providers', { credential: app.body.credential })).status, 200);
    assert.equal(
      (await api(state.url, 'GET', '/api/config/providers', { credential: browser.body.credential })).status,
      401,
      'the earlier pairing is gone',
    );
    assert.ok(log.lines().some((l) => l.line === 'pairing reset (by the reset-pairing command)'));
  });

  it('an unpaired folder is not reset: the current code is the one to use', async () => {
    const dataDir = path.join(root, 'unpaired');
    const { sup, log } = supervise(dataDir);
    sup.start();
    await ready(sup);
    const current = log.pairingCode ?? (await new Promise((r) => log.onPairingCode((c) => c && r(c))));
    const result = await resetPairingForApp({ dataDir, log, state: sup.state });
    assert.deepEqual(result, { code: current, external: false });
  });

  it('a backend running outside the app: the folder is reset, its new code is in its own output', async () => {
    const dataDir = path.join(root, 'headless');
    const { proc, credential } = await startPaired({ dataDir });
    cleanup.push(() => proc.stop());
    const deadline = Date.now() + 10_000;
    while (!(await readLiveInstance(dataDir))?.url && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const { sup, log } = supervise(dataDir, true);
    sup.start();
    assert.equal((await ready(sup)).external, true);
    const from = proc.lines.length;
    assert.deepEqual(await resetPairingForApp({ dataDir, log, state: sup.state }), { code: null, external: true });
    await proc.waitForLine(/^pairing code: \d{6} /, 10_000, from);
    assert.equal((await api(proc.url, 'GET', '/api/config/providers', { credential })).status, 401);
  });

  it('refuses while the backend is not running', async () => {
    await assert.rejects(
      resetPairingForApp({ dataDir: path.join(root, 'x'), log: new LogBuffer(), state: { status: 'stopped' } }),
      /the backend is not running \(stopped\)/,
    );
  });
});
