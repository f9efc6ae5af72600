import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { EventChannel } from '../../app/ipc/contract.js';
import { LogBuffer } from '../../app/logs/log-buffer.js';
import { PendingResetCode, resetPairingForApp } from '../../app/pairing/reset-flow.js';
import type { BackendState } from '../../app/supervisor/backend-state.js';
import { BackendSupervisor } from '../../app/supervisor/backend-supervisor.js';
import { api, BACKEND_ENTRY, tempDir } from '../helpers/backend-process.js';
import { buildRenderer, launchChromium, screenshot, watchErrors } from './browser.js';

/**
 * The desktop app's pairing screen in Chromium: `window.serviceApp` is a stand-in for the preload
 * whose calls go to this test process, where a real supervisor runs the real backend and the
 * main process's reset logic (resetPairingForApp, PendingResetCode) answers them.
 */
const BRIDGE = `(() => {
  const listeners = {};
  const on = (channel) => (listener) => {
    (listeners[channel] ??= new Set()).add(listener);
    return () => listeners[channel].delete(listener);
  };
  window.__shellEmit = (channel, payload) => (listeners[channel] ?? new Set()).forEach((l) => l(payload));
  const call = (method, arg) => window.__shellCall(method, arg ?? null);
  window.serviceApp = {
    backend: { getState: () => call('backend.getState'), onStateChanged: on('backend:state-changed'), restart: () => call('none') },
    pairing: {
      getCode: () => call('pairing.getCode'),
      onCodeChanged: on('pairing:code-changed'),
      reset: () => call('pairing.reset'),
      takeResetCode: () => call('pairing.takeResetCode'),
      onResetDone: on('pairing:reset-done'),
    },
    logs: { getLines: () => call('logs.getLines'), onLines: on('backend:log-lines'), onShowLogs: on('menu:show-logs') },
    folders: { open: () => call('none') },
    credential: {
      store: (credential) => call('credential.store', credential),
      read: () => call('credential.read'),
      clear: () => call('credential.clear'),
    },
  };
})();`;

describe('desktop app: Reset pairing… on a folder a browser paired (Chromium, real backend)', { timeout: 180_000 }, () => {
  const root = tempDir('svc-e2e-desktop-');
  const dataDir = path.join(root, 'data');
  const log = new LogBuffer();
  const pending = new PendingResetCode(log);
  let supervisor: BackendSupervisor;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let url = '';
  let stored: string | null = null;

  const emit = (channel: EventChannel, payload: unknown) =>
    page.evaluate(`window.__shellEmit(${JSON.stringify(channel)}, ${JSON.stringify(payload)})`);

  before(async () => {
    const uiDir = await buildRenderer();
    supervisor = new BackendSupervisor({
      entry: BACKEND_ENTRY,
      dataDir,
      log,
      preferredPort: 0,
      preferredSwapPort: 'off',
      env: { ...process.env, SERVICE_UI_DIR: uiDir },
      timing: { healthPollMs: 20 },
    });
    supervisor.start();
    const state = await supervisor.waitFor((s) => s.status === 'ready' || s.status === 'failed', 20_000);
    assert.equal(state.status, 'ready', JSON.stringify(state));
    url = (state as Extract<BackendState, { status: 'ready' }>).url;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 900 }, locale: 'en-US' });
    errors = watchErrors(page);
    const handlers: Record<string, (arg: unknown) => unknown> = {
      'backend.getState': () => supervisor.state,
      'pairing.getCode': () => log.pairingCode,
      'pairing.reset': () => resetPairingForApp({ dataDir, log, state: supervisor.state }),
      'pairing.takeResetCode': () => pending.take(),
      'logs.getLines': () => [],
      'credential.store': (credential) => {
        stored = credential as string;
        return null;
      },
      'credential.read': () => stored,
      'credential.clear': () => {
        stored = null;
        return null;
      },
      none: () => null,
    };
    await page.exposeFunction('__shellCall', async (method: string, arg: unknown) => {
      try {
        return { ok: true, value: (await handlers[method](arg)) ?? null };
      } catch (err) {
        return { ok: false, error: { code: 'failed', message: (err as Error).message } };
      }
    });
    await page.addInitScript(BRIDGE);
    log.onPairingCode((code) => void emit('pairing:code-changed', code).catch(() => undefined));
  });

  after(async () => {
    await browser?.close();
    await supervisor?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('offers the reset after a confirmation and pairs the app with the new code', async () => {
    // A browser paired first: the folder is bound and the app has no credential.
    const browserClaim = await api(url, 'POST', '/api/pairing/claim', { body: { pairing_code: log.pairingCode!.code } });
    assert.equal(browserClaim.status, 200);
    await page.goto(`${url}/`);
    await page.getByRole('heading', { name: 'Connect to your backend' }).waitFor();
    await page.getByText('This backend is already paired').waitFor();
    await page.getByRole('button', { name: 'Reset pairing…' }).click();
    await page.getByText('Resetting forgets every browser or app paired with this backend').waitFor();
    await screenshot(page, 'desktop-reset-pairing-confirm');
    await page.getByRole('button', { name: 'Reset and pair this app' }).click();
    await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor({ timeout: 30_000 });
    assert.match(stored ?? '', /^svc_/);
    assert.equal((await api(url, 'GET', '/api/config/providers', { credential: stored! })).status, 200);
    assert.equal((await api(url, 'GET', '/api/config/providers', { credential: browserClaim.body.credential })).status, 401);
  });

  it('File → Reset Pairing… (confirmed in main): the app returns to pairing and pairs itself again', async () => {
    const before = stored!;
    const result = await resetPairingForApp({ dataDir, log, state: supervisor.state });
    pending.set(result.code);
    await emit('pairing:reset-done', null);
    // The old credential stops working; the session ends, the pairing screen takes the new code.
    const deadline = Date.now() + 30_000;
    while ((stored === before || stored === null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.notEqual(stored, before);
    await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor({ timeout: 30_000 });
    assert.equal((await api(url, 'GET', '/api/config/providers', { credential: stored! })).status, 200);
    assert.deepEqual(errors, []);
  });
});
