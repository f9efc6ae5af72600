import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { EventChannel } from '../../app/ipc/contract.js';
import { pinnedRequest, type Pin } from '../../app/remote/cert-pinning.js';
import { CredentialSlots, LocalCredentialFile } from '../../app/remote/credential-slots.js';
import { RemoteBackends } from '../../app/remote/remote-backends.js';
import { LOCAL, RemoteBook } from '../../app/remote/remote-book.js';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { testCipher } from '../helpers/test-cipher.js';
import { assertAccessible } from './axe.js';
import { buildRenderer, launchChromium, screenshot, watchErrors } from './browser.js';

/**
 * "Connect to another backend…" in Chromium. `window.serviceApp` stands in for the preload; its
 * calls reach this test process, which plays the main process with the real plain modules
 * (RemoteBackends, RemoteBook, CredentialSlots) and reloads the page where main would. The remote is
 * a real backend with `-tls auto`. Two things of Electron are stood in for: Chromium's certificate
 * check (main answers it from the pin, tested in main-remote.test) by ignoreHTTPSErrors, and the
 * app's CSP for the remote origin (also tested there) by bypassCSP, since the page is served by the
 * local backend here rather than app://renderer.
 */
const BRIDGE = `(() => {
  const listeners = {};
  const on = (channel) => (listener) => {
    (listeners[channel] ??= new Set()).add(listener);
    return () => listeners[channel].delete(listener);
  };
  window.__shellEmit = (channel, payload) => (listeners[channel] ?? new Set()).forEach((l) => l(payload));
  const call = (method, arg) => window.__shellCall(method, arg === undefined ? null : arg);
  const none = () => call('none');
  window.serviceApp = {
    backend: { getState: () => call('backend.getState'), onStateChanged: on('backend:state-changed'), restart: none },
    pairing: { getCode: () => call('none'), onCodeChanged: on('pairing:code-changed'), reset: none, takeResetCode: none, onResetDone: on('pairing:reset-done') },
    logs: { getLines: () => call('logs.getLines'), onLines: on('backend:log-lines'), onShowLogs: on('menu:show-logs') },
    folders: { open: none, pick: none },
    credential: { store: (c) => call('credential.store', c), read: () => call('credential.read'), clear: () => call('credential.clear') },
    theme: { set: none },
    desktop: { getSettings: none, setShortcut: none, setCloseToTray: none, openInMain: none, onCommand: on('app:command') },
    remote: {
      getState: () => call('remote.state'),
      probe: (url, allowInsecure) => call('remote.probe', { url, allowInsecure }),
      pair: (input) => call('remote.pair', input),
      use: (target) => call('remote.use', target),
      forget: (origin) => call('remote.forget', origin),
      onConnectRequested: on('menu:connect-remote'),
      onRefused: on('remote:refused'),
    },
  };
})();`;

const FINGERPRINT = /^tls fingerprint: (SHA256:[0-9A-F:]+)$/;

describe('desktop app: connect to another backend (Chromium, real -tls auto backend)', { timeout: 240_000 }, () => {
  const folder = tempDir('svc-e2e-remote-');
  let local: BackendProcess;
  let remote: BackendProcess;
  let fingerprint: string;
  let origin: string;
  let firstCredential: string;
  let remotes: RemoteBackends;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  const emit = (channel: EventChannel, payload: unknown) =>
    page.evaluate(`window.__shellEmit(${JSON.stringify(channel)}, ${JSON.stringify(payload)})`);
  const startRemote = async (dataDir?: string, port?: number) => {
    remote = await BackendProcess.start({
      dataDir,
      args: ['-tls', 'auto', '-allow-origin', local.url, ...(port ? ['-port', String(port)] : [])],
    });
    fingerprint = (await remote.waitForLine(FINGERPRINT))[1];
    origin = `https://127.0.0.1:${remote.port}`;
  };
  const invite = async () => {
    const pin: Pin = { origin, fingerprint, pinned_at: '' };
    return (await pinnedRequest<{ code: string }>(pin, 'POST', '/api/selfhost/devices/invite', { credential: firstCredential, body: {} }))
      .body.code;
  };

  before(async () => {
    const uiDir = await buildRenderer();
    local = await BackendProcess.start({ env: { SERVICE_UI_DIR: uiDir } });
    await startRemote();
    await remote.waitForLine(/^pairing code: \d{6}/);
    const pin: Pin = { origin, fingerprint, pinned_at: '' };
    firstCredential = (
      await pinnedRequest<{ credential: string }>(pin, 'POST', '/api/pairing/claim', {
        body: { pairing_code: remote.pairingCode(), display_name: 'Server console' },
      })
    ).body.credential;

    const cipher = testCipher();
    remotes = new RemoteBackends(await RemoteBook.open(path.join(folder, 'remote-backends.json'), cipher), 'Desktop app (e2e)');
    const slots = new CredentialSlots(new LocalCredentialFile(path.join(folder, 'credential.enc'), cipher), () => remotes.book);
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      ignoreHTTPSErrors: true,
      bypassCSP: true,
    });
    page = await context.newPage();
    errors = watchErrors(page);
    const handlers: Record<string, (arg: any) => unknown> = {
      'backend.getState': () => ({ status: 'ready', url: local.url, swapUrl: null, external: false }),
      'logs.getLines': () => [],
      'credential.store': (credential: string) => slots.store(credential).then(() => null),
      'credential.read': () => slots.read(),
      'credential.clear': () => slots.clear().then(() => null),
      'remote.state': () => remotes.state(),
      'remote.probe': ({ url, allowInsecure }) => remotes.probe(url, allowInsecure ?? false),
      'remote.pair': (input) => remotes.pair(input),
      'remote.use': async (target: string) => {
        await remotes.use(target);
        setTimeout(() => void page.reload().catch(() => undefined), 50); // main reloads the window
        return null;
      },
      'remote.forget': async (target: string) => {
        await remotes.forget(target);
        return remotes.state();
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
  });

  after(async () => {
    await browser?.close();
    await remote?.stop();
    await local?.stop();
    remote?.cleanup();
    local?.cleanup();
    rmSync(folder, { recursive: true, force: true });
  });

  it('menu → address → the logged fingerprint to compare → invite code → the app works on the remote', async () => {
    await page.goto(`${local.url}/`);
    await page.getByRole('heading', { name: 'Connect to your backend' }).waitFor();
    await emit('menu:connect-remote', null);
    const dialog = page.getByRole('dialog', { name: 'Connect to another backend' });
    await dialog.getByLabel('Backend address').fill('http://192.0.2.1:8080');
    await dialog.getByRole('button', { name: 'Check' }).click();
    await dialog.getByText('Plain http:// to another machine is not encrypted').waitFor();
    await dialog.getByLabel('Backend address').fill(origin);
    await dialog.getByRole('button', { name: 'Check' }).click();
    await dialog.getByRole('heading', { name: 'Compare the certificate fingerprint' }).waitFor();
    assert.equal(
      await dialog.locator('[data-fingerprint]').getAttribute('data-fingerprint'),
      fingerprint,
      'the logged fingerprint is shown',
    );
    await assertAccessible(page, 'remote: compare fingerprint');
    await screenshot(page, 'remote-compare-fingerprint');

    await dialog.getByRole('button', { name: 'The fingerprints match' }).click();
    await dialog.getByLabel('Invite code').fill('000000');
    await dialog.getByRole('button', { name: 'Pair and connect' }).click();
    await dialog.getByText('The code is wrong or has expired.').waitFor();
    await dialog.getByLabel('Invite code').fill(await invite());
    await dialog.getByLabel('Name of this device (optional)').fill('Work laptop');
    await dialog.getByRole('button', { name: 'Pair and connect' }).click();
    // The window reloads on the remote: the app opens past pairing with the stored credential.
    await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: 'Connection' }).click();
    await page.locator('dd.mono', { hasText: origin }).first().waitFor();
    const card = page.locator('.card', { hasText: 'Backends' });
    await card.getByText('This window uses').waitFor();
    assert.equal(await card.locator('[data-fingerprint]').first().getAttribute('data-fingerprint'), fingerprint);
    await page
      .getByRole('cell', { name: /Work laptop/ })
      .first()
      .waitFor();
    await assertAccessible(page, 'remote: connection page on the remote');
    await screenshot(page, 'remote-connection-page');
  });

  it('a certificate Chromium refuses while the app runs replaces the page with the explanation', async () => {
    const presented = `SHA256:${'5A:'.repeat(31)}5A`;
    await emit('remote:refused', { origin, pinned: fingerprint, presented, pinned_at: new Date().toISOString(), message: 'x' });
    await page.getByRole('heading', { name: 'The backend’s certificate changed' }).waitFor();
    assert.equal(await page.locator('[data-fingerprint]').nth(1).getAttribute('data-fingerprint'), presented);
    await page.reload(); // the certificate is still the pinned one: the start check lets the app back in
    await page.getByRole('heading', { name: 'Connection', level: 1 }).waitFor({ timeout: 30_000 });
  });

  it('a changed certificate is refused with both fingerprints; re-pairing after a new comparison gets back in', async () => {
    const old = fingerprint;
    const { dataDir, port } = remote;
    await remote.stop();
    rmSync(path.join(dataDir, 'selfhost', 'tls'), { recursive: true, force: true });
    await startRemote(dataDir, port);
    assert.notEqual(fingerprint, old);

    await page.reload();
    await page.getByRole('heading', { name: 'The backend’s certificate changed' }).waitFor({ timeout: 30_000 });
    const pinned = page.locator('[data-fingerprint]').nth(0);
    const presented = page.locator('[data-fingerprint]').nth(1);
    assert.equal(await pinned.getAttribute('data-fingerprint'), old);
    assert.equal(await presented.getAttribute('data-fingerprint'), fingerprint);
    await page.getByText('Someone between you and the backend is intercepting the connection.').waitFor();
    await assertAccessible(page, 'remote: refused certificate');
    await screenshot(page, 'remote-refused');

    // The same screen in Chinese.
    await page.getByRole('combobox').first().selectOption('zh');
    await page.getByRole('heading', { name: '后端的证书已变化' }).waitFor();
    await screenshot(page, 'remote-refused-zh');
    await page.getByRole('combobox').first().selectOption('en');

    await page.getByRole('button', { name: 'Re-pair…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect to another backend' });
    assert.equal(await dialog.getByLabel('Backend address').inputValue(), origin, 'the address is kept');
    await dialog.getByRole('button', { name: 'Check' }).click();
    assert.equal(await dialog.locator('[data-fingerprint]').getAttribute('data-fingerprint'), fingerprint);
    await dialog.getByRole('button', { name: 'The fingerprints match' }).click();
    await dialog.getByLabel('Invite code').fill(await invite());
    await dialog.getByRole('button', { name: 'Pair and connect' }).click();
    // Back on the page it showed (Connection), now on the re-paired remote.
    await page.getByRole('heading', { name: 'Connection', level: 1 }).waitFor({ timeout: 30_000 });
    await page.locator('dd.mono', { hasText: origin }).first().waitFor();
    assert.equal(remotes.book.pins().get(origin)?.fingerprint, fingerprint, 'the new certificate is pinned');
  });

  it('"Use the local backend" goes back to the bundled backend', async () => {
    await page.getByRole('link', { name: 'Connection' }).click();
    await page.getByRole('button', { name: 'Use the local backend' }).click();
    await page.getByRole('heading', { name: 'Connect to your backend' }).waitFor({ timeout: 30_000 });
    await page.locator('.url-row code', { hasText: local.url }).waitFor();
    assert.equal(remotes.book.active, LOCAL);
    assert.deepEqual(errors, []);
  });
});
