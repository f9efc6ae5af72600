// The desktop-life wiring (tray, quick-ask window, global shortcut, updates): Electron calls only.
// The decisions live in plain modules under app/desktop/, tested under Node.
import { app, BrowserWindow, dialog, globalShortcut, Menu, nativeImage, screen, Tray } from 'electron';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BackupStore } from '../../backend/backup/backup-store.js';
import { DesktopSettingsStore } from '../desktop/desktop-settings.js';
import { ShortcutRegistrar } from '../desktop/global-shortcut.js';
import { QUICK_ASK_ROUTE, quickAskWindowOptions } from '../desktop/quick-ask-window.js';
import { keepInTrayOnClose, trayMenuTemplate } from '../desktop/tray-menu.js';
import { UpdateController, type UpdaterLike } from '../desktop/update-controller.js';
import { EVENTS, INVOKE, type AppCommandPayload, type DesktopState } from '../ipc/contract.js';
import { handle } from './ipc-handlers.js';
import { startUrl } from './page-load.js';
import { RENDERER_START_URL } from './window.js';

export interface DesktopLifeDeps {
  preload: string;
  rendererDir: string;
  dataDir: string;
  /** The main window, opened (and shown) if there is none. */
  showMain(): BrowserWindow;
  log(line: string): void;
}

export interface DesktopLife {
  /** Main window's `close`: hide to the tray instead, when the user chose so. */
  onMainClose(event: { preventDefault(): void }, window: BrowserWindow): void;
  /** Before quit: install a postponed update (after its snapshot). True when it took over the quit. */
  installPendingUpdate(): Promise<boolean>;
  /** Shows or hides the quick-ask window, as the global shortcut and the tray menu do. */
  openQuickAsk(): void;
  dispose(): void;
}

export async function setUpDesktopLife(deps: DesktopLifeDeps): Promise<DesktopLife> {
  const settingsStore = new DesktopSettingsStore(path.join(app.getPath('userData'), 'desktop-settings.json'));
  let settings = await settingsStore.read();
  let quitting = false;
  let quickAsk: BrowserWindow | undefined;
  app.on('before-quit', () => (quitting = true));

  const sendToMain = (command: AppCommandPayload) => {
    const main = deps.showMain();
    main.webContents.send(EVENTS.appCommand, command);
  };
  const openQuickAsk = () => {
    if (quickAsk && !quickAsk.isDestroyed()) {
      if (quickAsk.isVisible() && quickAsk.isFocused()) quickAsk.hide();
      else {
        quickAsk.show();
        quickAsk.focus();
      }
      return;
    }
    const display = screen.getDisplayNearestPoint(screen.getCursorScreenPoint());
    const created = new BrowserWindow(quickAskWindowOptions(deps.preload, display.workArea));
    quickAsk = created;
    created.once('ready-to-show', () => {
      created.show();
      created.focus();
    });
    created.on('closed', () => {
      if (quickAsk === created) quickAsk = undefined;
    });
    created.loadURL(startUrl(RENDERER_START_URL, QUICK_ASK_ROUTE)).catch(() => undefined);
  };

  const registrar = new ShortcutRegistrar(globalShortcut, openQuickAsk);
  const first = registrar.apply(settings.quick_ask_shortcut);
  if (!first.ok) deps.log(`quick ask: ${first.message}`);

  // Some Linux desktops have no tray area: the Tray constructor still works there, nothing shows.
  let tray: Tray | undefined;
  const rebuildTray = () => {
    tray?.setContextMenu(
      Menu.buildFromTemplate(
        trayMenuTemplate(
          {
            newChat: () => sendToMain({ type: 'new-chat' }),
            quickAsk: openQuickAsk,
            show: () => void deps.showMain(),
            quit: () => app.quit(),
          },
          registrar.active,
        ),
      ),
    );
  };
  try {
    const icon = nativeImage.createFromPath(path.join(deps.rendererDir, 'tray-icon.png')).resize({ width: 22, height: 22 });
    tray = new Tray(icon);
    tray.setToolTip('Service');
    tray.on('click', () => void deps.showMain());
    rebuildTray();
  } catch (err) {
    deps.log(`tray: not available: ${(err as Error).message}`);
  }

  const state = (): DesktopState => ({
    quick_ask_shortcut: settings.quick_ask_shortcut,
    active_shortcut: registrar.active,
    close_to_tray: settings.close_to_tray,
    tray: tray !== undefined,
  });
  handle(INVOKE.desktopSettings, () => state());
  handle(INVOKE.desktopSetShortcut, async ({ accelerator }) => {
    const result = registrar.apply(accelerator);
    if (!result.ok) return { ok: false, reason: result.reason, message: result.message, state: state() };
    settings = await settingsStore.update({ quick_ask_shortcut: accelerator });
    rebuildTray();
    return { ok: true, state: state() };
  });
  handle(INVOKE.desktopSetCloseToTray, async ({ enabled }) => {
    settings = await settingsStore.update({ close_to_tray: enabled });
    return state();
  });
  handle(INVOKE.desktopOpenInMain, ({ workspace_id, session_id }) => {
    sendToMain({ type: 'open-session', workspaceId: workspace_id, sessionId: session_id });
    quickAsk?.hide();
    return null;
  });

  // Updates: only a packaged build with a `publish` feed (electron-builder writes app-update.yml).
  const hasFeed = app.isPackaged && existsSync(path.join(process.resourcesPath, 'app-update.yml'));
  let updates: UpdateController | undefined;
  if (hasFeed) {
    const { autoUpdater } = await import('electron-updater');
    updates = new UpdateController({
      updater: autoUpdater as unknown as UpdaterLike,
      hasFeed,
      backup: async () => {
        const info = await new BackupStore({ root: deps.dataDir }).create('pre-update');
        deps.log(`updates: data directory saved as backups/${info.name}`);
      },
      ask: async (version) => {
        const { response } = await dialog.showMessageBox({
          type: 'question',
          buttons: ['Restart now', 'Later'],
          defaultId: 0,
          cancelId: 1,
          message: `Version ${version} is ready to install`,
          detail: 'The app restarts to install it; your data directory is backed up first. “Later” installs it when you quit.',
        });
        return response === 0;
      },
      log: deps.log,
    });
    updates.start();
  } else deps.log('updates: no publish feed in this build; update checks are off');

  return {
    onMainClose(event, window) {
      if (!keepInTrayOnClose({ closeToTray: settings.close_to_tray, hasTray: tray !== undefined, quitting })) return;
      event.preventDefault();
      window.hide();
    },
    openQuickAsk,
    async installPendingUpdate() {
      return updates?.pendingVersion ? updates.install() : false;
    },
    dispose() {
      registrar.release();
      tray?.destroy();
    },
  };
}
