import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DesktopSettingsStore } from '../../app/desktop/desktop-settings.js';
import {
  DEFAULT_QUICK_ASK_SHORTCUT,
  ShortcutRegistrar,
  validAccelerator,
  type GlobalShortcutLike,
} from '../../app/desktop/global-shortcut.js';
import { QUICK_ASK_ROUTE, quickAskWindowOptions } from '../../app/desktop/quick-ask-window.js';
import { keepInTrayOnClose, trayMenuTemplate } from '../../app/desktop/tray-menu.js';
import { CHECK_EVERY_MS, UpdateController, type UpdaterLike } from '../../app/desktop/update-controller.js';
import { tempDir } from '../helpers/backend-process.js';

/** globalShortcut with some combinations held by "another application". */
class FakeShortcuts implements GlobalShortcutLike {
  readonly mine = new Map<string, () => void>();
  constructor(readonly heldElsewhere: Set<string> = new Set()) {}
  register(accelerator: string, callback: () => void): boolean {
    if (this.heldElsewhere.has(accelerator)) return false;
    this.mine.set(accelerator, callback);
    return true;
  }
  unregister(accelerator: string): void {
    this.mine.delete(accelerator);
  }
  isRegistered(accelerator: string): boolean {
    return this.mine.has(accelerator);
  }
}

describe('tray and quick ask', () => {
  it('the tray menu offers New chat, Quick ask (with its shortcut), Show and Quit, each doing its action', () => {
    const done: string[] = [];
    const items = trayMenuTemplate(
      { newChat: () => done.push('new'), quickAsk: () => done.push('ask'), show: () => done.push('show'), quit: () => done.push('quit') },
      DEFAULT_QUICK_ASK_SHORTCUT,
    );
    assert.deepEqual(
      items.map((i) => i.label ?? i.type),
      ['New Chat', 'Quick Ask', 'Show Service', 'separator', 'Quit'],
    );
    assert.equal(items[1].accelerator, DEFAULT_QUICK_ASK_SHORTCUT);
    for (const item of items) (item.click as (() => void) | undefined)?.();
    assert.deepEqual(done, ['new', 'ask', 'show', 'quit']);
  });

  it('closing the window keeps the app in the tray only when chosen, with a tray, and not while quitting', () => {
    assert.equal(keepInTrayOnClose({ closeToTray: true, hasTray: true, quitting: false }), true);
    assert.equal(keepInTrayOnClose({ closeToTray: false, hasTray: true, quitting: false }), false);
    assert.equal(keepInTrayOnClose({ closeToTray: true, hasTray: false, quitting: false }), false);
    assert.equal(keepInTrayOnClose({ closeToTray: true, hasTray: true, quitting: true }), false);
  });

  it('the quick-ask window is small, on top, centred on the display, and as locked down as the main window', () => {
    const o = quickAskWindowOptions('/p/preload.cjs', { x: 1920, y: 0, width: 2560, height: 1440 });
    assert.equal(o.alwaysOnTop, true);
    assert.equal(o.skipTaskbar, true);
    assert.equal(o.show, false);
    assert.ok(o.width! <= 600 && o.height! <= 480);
    assert.equal(o.x, 1920 + (2560 - o.width!) / 2, 'centred on the display it opens on');
    assert.ok(o.y! >= 0 && o.y! < 1440 / 2);
    assert.deepEqual(
      { ...o.webPreferences },
      {
        preload: '/p/preload.cjs',
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
    assert.equal(QUICK_ASK_ROUTE, 'quick-ask');
  });
});

describe('the global quick-ask shortcut', () => {
  it('accepts Electron accelerators with a modifier and one key', () => {
    for (const ok of [DEFAULT_QUICK_ASK_SHORTCUT, 'Alt+Space', 'CmdOrCtrl+Shift+K', 'Control+F12', 'Super+/'])
      assert.equal(validAccelerator(ok), true, ok);
    for (const bad of ['', 'Space', 'Ctrl+', 'Ctrl+Shift', 'Ctrl+Ctrl+K', 'Hyper+K', 'Ctrl+KK', 'Ctrl++'])
      assert.equal(validAccelerator(bad), false, bad);
  });

  it('registers, changes, and reports a clash while keeping the working shortcut', () => {
    const shortcuts = new FakeShortcuts(new Set(['Alt+Space']));
    let triggered = 0;
    const registrar = new ShortcutRegistrar(shortcuts, () => triggered++);
    assert.deepEqual(registrar.apply(DEFAULT_QUICK_ASK_SHORTCUT), { ok: true, accelerator: DEFAULT_QUICK_ASK_SHORTCUT });
    shortcuts.mine.get(DEFAULT_QUICK_ASK_SHORTCUT)!();
    assert.equal(triggered, 1);

    const clash = registrar.apply('Alt+Space');
    assert.equal(clash.ok, false);
    assert.ok(!clash.ok && clash.reason === 'taken' && /Alt\+Space is already used by another application/.test(clash.message));
    assert.equal(registrar.active, DEFAULT_QUICK_ASK_SHORTCUT, 'the old shortcut still works');
    assert.ok(shortcuts.isRegistered(DEFAULT_QUICK_ASK_SHORTCUT));

    const invalid = registrar.apply('Space');
    assert.ok(!invalid.ok && invalid.reason === 'invalid');

    assert.deepEqual(registrar.apply('CmdOrCtrl+Shift+K'), { ok: true, accelerator: 'CmdOrCtrl+Shift+K' });
    assert.deepEqual([...shortcuts.mine.keys()], ['CmdOrCtrl+Shift+K'], 'the old one is let go');
    registrar.release();
    assert.equal(shortcuts.mine.size, 0);
  });

  it('the shortcut and the close-to-tray choice persist; a damaged file means the defaults', async () => {
    const file = path.join(tempDir('svc-desk-'), 'desktop-settings.json');
    const store = new DesktopSettingsStore(file);
    assert.deepEqual(await store.read(), { quick_ask_shortcut: DEFAULT_QUICK_ASK_SHORTCUT, close_to_tray: false });
    await store.update({ quick_ask_shortcut: 'Alt+K', close_to_tray: true });
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { quick_ask_shortcut: 'Alt+K', close_to_tray: true });
    writeFileSync(file, '{oops');
    assert.equal((await store.read()).quick_ask_shortcut, DEFAULT_QUICK_ASK_SHORTCUT);
  });
});

class FakeUpdater implements UpdaterLike {
  autoDownload = false;
  autoInstallOnAppQuit = true;
  checks = 0;
  installs: string[] = [];
  private listeners = new Map<string, ((arg: any) => void)[]>();
  constructor(private readonly order: string[]) {}
  checkForUpdates(): Promise<unknown> {
    this.checks++;
    return Promise.resolve(null);
  }
  quitAndInstall(): void {
    this.order.push('quitAndInstall');
  }
  on(event: string, listener: (arg: any) => void): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  emit(event: string, arg: unknown): void {
    for (const l of this.listeners.get(event) ?? []) l(arg);
  }
}

const tick = () => new Promise((r) => setImmediate(r));

describe('updates', () => {
  it('no publish feed: no check, nothing scheduled', () => {
    const updater = new FakeUpdater([]);
    let scheduled = 0;
    const c = new UpdateController({
      updater,
      hasFeed: false,
      backup: () => Promise.resolve(),
      ask: () => Promise.resolve(true),
      log: () => undefined,
      setInterval: () => (scheduled++, {}),
    });
    assert.equal(c.start(), false);
    assert.equal(updater.checks, 0);
    assert.equal(scheduled, 0);
  });

  it('checks at start and every 6 hours, downloads in the background, asks, backs up, then installs', async () => {
    const order: string[] = [];
    const updater = new FakeUpdater(order);
    let every: { fn: () => void; ms: number } | undefined;
    const c = new UpdateController({
      updater,
      hasFeed: true,
      backup: async () => void order.push('backup'),
      ask: async (v) => (order.push(`ask ${v}`), true),
      log: () => undefined,
      setInterval: (fn, ms) => ((every = { fn, ms }), {}),
    });
    assert.equal(c.start(), true);
    assert.equal(updater.checks, 1);
    assert.equal(updater.autoDownload, true);
    assert.equal(updater.autoInstallOnAppQuit, false, 'never installs behind the backup’s back');
    assert.equal(every?.ms, CHECK_EVERY_MS);
    every!.fn();
    assert.equal(updater.checks, 2);
    updater.emit('update-downloaded', { version: '0.2.0' });
    await tick();
    await tick();
    assert.deepEqual(order, ['ask 0.2.0', 'backup', 'quitAndInstall']);
  });

  it('a declined restart installs nothing now; a failed backup installs nothing at all', async () => {
    const order: string[] = [];
    const updater = new FakeUpdater(order);
    let backupWorks = false;
    const c = new UpdateController({
      updater,
      hasFeed: true,
      backup: async () => {
        order.push('backup');
        if (!backupWorks) throw new Error('disk full');
      },
      ask: async () => false,
      log: () => undefined,
      setInterval: () => ({}),
    });
    c.start();
    updater.emit('update-downloaded', { version: '0.3.0' });
    await tick();
    assert.deepEqual(order, []);
    assert.equal(c.pendingVersion, '0.3.0');
    assert.equal(await c.install(), false);
    assert.deepEqual(order, ['backup'], 'no quitAndInstall without the snapshot');
    backupWorks = true;
    assert.equal(await c.install(), true);
    assert.deepEqual(order, ['backup', 'backup', 'quitAndInstall']);
  });
});
