import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BUILD_OUTPUT } from '../../app/build-layout.js';
import { readLiveInstance } from '../../backend/data/instance-lock.js';
import { PREVIEW_CSP } from '../../backend/http/preview-api.js';
import { PREVIEW_PARTITION, PREVIEW_WINDOW_URL } from '../../app/main/preview-window-policy.js';
import { BackendProcess, tempDir } from '../helpers/backend-process.js';
import { MainHarness, ROOT, type Message } from './main-harness.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The built main bundle run under Node with a stand-in `electron` module (fixtures/fake-electron):
 * checks the wiring of the thin Electron layer (what it forks, loads, allows, registers), not Electron.
 */
describe(
  'the built main process with a stand-in electron module',
  { skip: !existsSync(path.join(ROOT, BUILD_OUTPUT.main)) && 'npm run build:app first' },
  () => {
    const home = tempDir('svc-main-');
    let harness: MainHarness;
    const next = (match: (m: Message) => boolean, timeoutMs?: number, from?: number) => harness.next(match, timeoutMs, from);
    const command = (cmd: Record<string, unknown>, reply: string) => harness.command(cmd, reply);

    before(() => {
      harness = new MainHarness(home);
    });
    after(() => {
      harness?.kill();
      rmSync(home, { recursive: true, force: true });
    });

    it('forks the bundled backend as a utility process on the shared data folder and reports it ready', async () => {
      const fork = await next((m) => m.type === 'fork');
      assert.equal(fork.modulePath, path.join(ROOT, BUILD_OUTPUT.backend));
      assert.deepEqual(fork.args.slice(fork.args.indexOf('-data'), fork.args.indexOf('-data') + 2), ['-data', path.join(home, '.service')]);
      assert.equal(fork.runAsNode, null, 'no ELECTRON_RUN_AS_NODE');
      const ready = await next((m) => m.type === 'send' && m.channel === 'backend:state-changed' && m.payload.status === 'ready', 30_000);
      assert.equal(ready.payload.external, false);
      assert.equal((await fetch(`${ready.payload.url}/health`)).status, 200);
    });

    it('loads app://renderer/ in a sandboxed, isolated window and installs the menu', async () => {
      const window = await next((m) => m.type === 'window');
      assert.deepEqual(
        { ...window.webPreferences, preload: undefined },
        {
          preload: undefined,
          contextIsolation: true,
          sandbox: true,
          nodeIntegration: false,
          nodeIntegrationInWorker: false,
          webviewTag: false,
          webSecurity: true,
          allowRunningInsecureContent: false,
          spellcheck: false,
        },
      );
      assert.equal((await next((m) => m.type === 'loadURL')).url, 'app://renderer/');
      const menu = await next((m) => m.type === 'menu');
      for (const label of ['Quick Ask', 'Show Logs', 'Restart Backend', 'Reset Pairing…', 'Open Data Folder', 'Open Log Folder'])
        assert.ok(menu.labels.includes(label), label);
    });

    it('puts up the tray (New chat, Quick ask with its shortcut, Show, Quit) and registers the quick-ask shortcut', async () => {
      const menu = await next((m) => m.type === 'tray-menu');
      assert.deepEqual(menu.labels, ['New Chat', 'Quick Ask', 'Show Service', 'Quit']);
      assert.equal(menu.accelerators[1], 'CommandOrControl+Shift+Space');
      assert.equal((await next((m) => m.type === 'shortcut')).accelerator, 'CommandOrControl+Shift+Space');
      const invoke = (channel: string, payload?: unknown) =>
        command({ cmd: 'invoke', channel, sender: 'app://renderer/#/chat', payload }, 'invoked').then((m) => m.value);
      const state = await invoke('desktop:settings');
      assert.deepEqual(state.value, {
        quick_ask_shortcut: 'CommandOrControl+Shift+Space',
        active_shortcut: 'CommandOrControl+Shift+Space',
        close_to_tray: false,
        tray: true,
      });
      const changed = await invoke('desktop:set-shortcut', { accelerator: 'Alt+Shift+K' });
      assert.equal(changed.value.ok, true);
      assert.equal(changed.value.state.active_shortcut, 'Alt+Shift+K');
      const saved = JSON.parse(readFileSync(path.join(home, 'userData', 'desktop-settings.json'), 'utf8'));
      assert.equal(saved.quick_ask_shortcut, 'Alt+Shift+K');
      const bad = await invoke('desktop:set-shortcut', { accelerator: 'K' });
      assert.equal(bad.value.ok, false);
      assert.equal(bad.value.state.active_shortcut, 'Alt+Shift+K');
    });

    it('grants loopback access only to the renderer and answers IPC only from it', async () => {
      assert.deepEqual(await command({ cmd: 'permission', permission: 'loopback-network', url: 'app://renderer/' }, 'permission'), {
        type: 'permission',
        granted: true,
        checked: true,
      });
      const denied = await command({ cmd: 'permission', permission: 'loopback-network', url: 'https://example.com/' }, 'permission');
      assert.deepEqual([denied.granted, denied.checked], [false, false]);
      const media = await command({ cmd: 'permission', permission: 'media', url: 'app://renderer/' }, 'permission');
      assert.deepEqual([media.granted, media.checked], [false, false]);
      const code = await command({ cmd: 'invoke', channel: 'pairing:code', sender: 'app://renderer/' }, 'invoked');
      assert.equal(code.value.ok, true);
      assert.match(code.value.value?.code ?? '', /^\d{6}$/);
      for (const channel of ['pairing:reset', 'pairing:take-reset', 'backend:state', 'credential:store'])
        assert.ok(code.channels.includes(channel), channel);
      const foreign = await command({ cmd: 'invoke', channel: 'pairing:code', sender: 'https://example.com/' }, 'invoked');
      assert.equal(foreign.value.error.code, 'untrusted_sender');
    });

    it("the full-size preview windows' session grants nothing, fetches nothing, downloads nothing and serves only the preview page", async () => {
      const outside = await command(
        { cmd: 'partition', partition: PREVIEW_PARTITION, url: 'https://example.com/x.png', page: PREVIEW_WINDOW_URL },
        'partition',
      );
      assert.deepEqual(
        { ...outside, page: outside.page && { status: outside.page.status, csp: outside.page.csp } },
        {
          type: 'partition',
          exists: true,
          granted: false,
          checked: false,
          cancelled: true,
          downloadPrevented: true,
          page: { status: 200, csp: PREVIEW_CSP },
        },
      );
      const app = await command(
        { cmd: 'partition', partition: PREVIEW_PARTITION, url: 'app://renderer/index.html', page: 'app://renderer/index.html' },
        'partition',
      );
      assert.equal(app.page.status, 404, "the app's own page is not served to a preview window");
    });

    it('"Quick Ask" in the File menu opens the quick-ask window (desktops without a tray area reach it there)', async () => {
      const from = harness.messages.length;
      const clicked = await command({ cmd: 'click', label: 'Quick Ask' }, 'clicked');
      assert.equal(clicked.found, true);
      assert.match((await next((m) => m.type === 'loadURL', 10_000, from)).url, /^app:\/\/renderer\/#\/?quick-ask$/);
    });

    it('"Show Logs" with no window opens one at the logs page and reaches it once loaded', async () => {
      await command({ cmd: 'close-windows' }, 'closed');
      const from = harness.messages.length;
      await command({ cmd: 'click', label: 'Show Logs' }, 'clicked');
      assert.equal((await next((m) => m.type === 'loadURL', 10_000, from)).url, 'app://renderer/#/logs');
      await next((m) => m.type === 'send' && m.channel === 'menu:show-logs', 10_000, from);
      assert.equal((await next((m) => m.type === 'executeJavaScript', 10_000, from)).code, "location.hash = '#/logs'");
    });

    it('File → Reset Pairing… on a folder a browser paired: asks, resets, and hands the new code to the renderer', async () => {
      const ready = harness.messages.find(
        (m) => m.type === 'send' && m.channel === 'backend:state-changed' && m.payload.status === 'ready',
      )!;
      const { code } = (await command({ cmd: 'invoke', channel: 'pairing:code', sender: 'app://renderer/' }, 'invoked')).value.value;
      const browser = await fetch(`${ready.payload.url}/api/pairing/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pairing_code: code }),
      });
      assert.equal(browser.status, 200);
      // Cancel first: nothing happens.
      let from = harness.messages.length;
      await command({ cmd: 'click', label: 'Reset Pairing…' }, 'clicked');
      const asked = await next((m) => m.type === 'dialog', 10_000, from);
      assert.match(asked.options.message, /Reset pairing\?/);
      assert.match(asked.options.detail, /loses access/);
      assert.equal(
        (await fetch(`${ready.payload.url}/api/pairing/status`).then((r) => r.json() as Promise<{ bound: boolean }>)).bound,
        true,
      );
      // Confirmed: reset, and the renderer is told; the new code is handed over once.
      await command({ cmd: 'dialog-response', response: 0 }, 'dialog-response');
      from = harness.messages.length;
      await command({ cmd: 'click', label: 'Reset Pairing…' }, 'clicked');
      await next((m) => m.type === 'send' && m.channel === 'pairing:reset-done', 20_000, from);
      const taken = (await command({ cmd: 'invoke', channel: 'pairing:take-reset', sender: 'app://renderer/' }, 'invoked')).value;
      assert.match(taken.value?.code ?? '', /^\d{6}$/);
      assert.notEqual(taken.value.code, code);
      assert.equal(
        (await command({ cmd: 'invoke', channel: 'pairing:take-reset', sender: 'app://renderer/' }, 'invoked')).value.value,
        null,
      );
      assert.equal(
        (await fetch(`${ready.payload.url}/api/pairing/status`).then((r) => r.json() as Promise<{ bound: boolean }>)).bound,
        false,
      );
      await command({ cmd: 'dialog-response', response: 1 }, 'dialog-response');
    });

    it('on quit stops the backend it started', async () => {
      const ready = harness.messages.find(
        (m) => m.type === 'send' && m.channel === 'backend:state-changed' && m.payload.status === 'ready',
      )!;
      harness.process.send({ cmd: 'quit' });
      await next((m) => m.type === 'quit', 15_000);
      const deadline = Date.now() + 10_000;
      while (alive(ready.payload.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(alive(ready.payload.pid), false);
    });
  },
);

describe(
  'the built main process when a backend already runs for its data folder',
  { skip: !existsSync(path.join(ROOT, BUILD_OUTPUT.main)) && 'npm run build:app first' },
  () => {
    const home = tempDir('svc-main-ext-');
    let headless: BackendProcess;
    let harness: MainHarness;
    before(async () => {
      headless = await BackendProcess.start({ dataDir: path.join(home, '.service') });
      // The lock records the addresses just after the listeners are up.
      const deadline = Date.now() + 10_000;
      while (!(await readLiveInstance(path.join(home, '.service')))?.url && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      harness = new MainHarness(home);
    });
    after(async () => {
      harness?.kill();
      await headless?.stop();
      rmSync(home, { recursive: true, force: true });
    });

    it('connects to it instead of forking a second backend, and leaves it running on quit', async () => {
      const ready = await harness.ready();
      assert.deepEqual([ready.payload.external, ready.payload.url, ready.payload.pid], [true, headless.url, headless.child.pid]);
      assert.equal(
        harness.messages.some((m) => m.type === 'fork'),
        false,
        'no second backend',
      );
      harness.process.send({ cmd: 'quit' });
      await harness.next((m) => m.type === 'quit', 15_000);
      assert.equal((await fetch(`${headless.url}/health`)).status, 200, 'the headless backend keeps running');
    });
  },
);

describe(
  'the built main process when the backend it was using goes away',
  { skip: !existsSync(path.join(ROOT, BUILD_OUTPUT.main)) && 'npm run build:app first' },
  () => {
    const home = tempDir('svc-main-gone-');
    let headless: BackendProcess;
    let harness: MainHarness;
    before(async () => {
      headless = await BackendProcess.start({ dataDir: path.join(home, '.service') });
      const deadline = Date.now() + 10_000;
      while (!(await readLiveInstance(path.join(home, '.service')))?.url && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      harness = new MainHarness(home);
    });
    after(async () => {
      harness?.kill();
      await headless?.stop();
      rmSync(home, { recursive: true, force: true });
    });

    it('starts its own backend on the folder and reloads the page for the new address', async () => {
      assert.equal((await harness.ready()).payload.external, true);
      const from = harness.messages.length;
      await headless.kill();
      const fork = await harness.next((m) => m.type === 'fork', 20_000, from);
      assert.equal(fork.modulePath, path.join(ROOT, BUILD_OUTPUT.backend));
      const own = await harness.next(
        (m) => m.type === 'send' && m.channel === 'backend:state-changed' && m.payload.status === 'ready' && !m.payload.external,
        30_000,
        from,
      );
      assert.equal((await fetch(`${own.payload.url}/health`)).status, 200);
      if (own.payload.url !== headless.url) await harness.next((m) => m.type === 'reload', 5000, from);
      harness.process.send({ cmd: 'quit' });
      await harness.next((m) => m.type === 'quit', 15_000);
    });
  },
);
