// Electron main process: wiring only. The logic lives in plain modules (supervisor, logs, ipc, pairing).
import { app, shell, utilityProcess, type BrowserWindow } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDataDir } from '../../backend/data/data-dir.js';
import { runtimePaths } from '../build-layout.js';
import { LogBuffer } from '../logs/log-buffer.js';
import { LogFileMirror } from '../logs/log-file-mirror.js';
import { PendingResetCode } from '../pairing/reset-flow.js';
import { BackendSupervisor } from '../supervisor/backend-supervisor.js';
import { caCertArgs } from '../supervisor/ca-certs.js';
import { shellEnvArgs } from '../supervisor/shell-env.js';
import { findRunningBackend } from '../supervisor/running-backend.js';
import { utilityProcessLauncher } from '../supervisor/utility-process.js';
import { createCredentialStore } from './credential-store.js';
import { registerIpc, sendConnectRemote, sendShowLogs } from './ipc-handlers.js';
import { installMenu } from './menu.js';
import { whenLoaded } from './page-load.js';
import { registerPreviewWindows } from './preview-window.js';
import { registerRendererScheme, serveRenderer } from './protocol.js';
import { resetPairingFromMenu } from './reset-pairing-menu.js';
import { hardenWebContents } from './security.js';
import { setUpDesktopLife, type DesktopLife } from './desktop-life.js';
import { setUpRemotes } from './remote-wiring.js';
import { createMainWindow } from './window.js';

const MAIN_DIR = path.dirname(fileURLToPath(import.meta.url));
/** The hash route (renderer/src/shell/routes.ts) of the logs page. */
const LOGS_ROUTE = 'logs';

registerRendererScheme();

if (!app.requestSingleInstanceLock()) {
  // A second launch (double-click while running) focuses the first instance instead.
  app.quit();
} else {
  void run();
}

async function run(): Promise<void> {
  let window: BrowserWindow | undefined;
  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  await app.whenReady();

  const paths = runtimePaths({
    isPackaged: app.isPackaged,
    appRoot: path.resolve(MAIN_DIR, '../..'),
    resourcesPath: process.resourcesPath,
  });
  // The same data directory as the headless service, so both see one configuration.
  const dataDir = defaultDataDir();
  const logDir = app.getPath('logs');
  const log = new LogBuffer({ mirror: new LogFileMirror(path.join(logDir, 'backend.log')) });
  const supervisor = new BackendSupervisor({
    entry: paths.backendEntry,
    dataDir,
    log,
    // A utility process, not ELECTRON_RUN_AS_NODE: the RunAsNode fuse is off in the package.
    launch: utilityProcessLauncher((modulePath, args, options) => utilityProcess.fork(modulePath, args, options)),
    // One backend per data folder: use the one already running for it (headless, another copy).
    findRunning: () => findRunningBackend(dataDir),
    // The NODE_OPTIONS fuse makes Electron ignore NODE_EXTRA_CA_CERTS: pass the file as a flag.
    // Tool servers find what the user's login shell finds (npx from nvm or Homebrew).
    extraArgs: [...caCertArgs(process.env), ...shellEnvArgs(process.platform)],
  });
  // Remote backends the user connected to (File → Connect to Another Backend…); local stays the default.
  const remotes = await setUpRemotes({
    userData: app.getPath('userData'),
    window: () => window,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  const credentials = createCredentialStore(app.getPath('userData'), remotes.book);
  const pendingReset = new PendingResetCode(log);

  hardenWebContents(
    () => window,
    () => remotes.activeOrigin() !== null,
  );
  serveRenderer(paths.rendererDir, remotes.activeOrigin);
  registerPreviewWindows(paths.rendererDir);
  registerIpc({ supervisor, log, credentials, pendingReset, folders: { data: dataDir, logs: logDir }, window: () => window });
  // Set once the windows exist (the main window's close handler reads it).
  const life: { desktop?: DesktopLife } = {};
  const openWindow = (route?: string): BrowserWindow => {
    const created = createMainWindow({ preload: paths.preload, rendererDir: paths.rendererDir, route });
    window = created;
    created.on('close', (event) => life.desktop?.onMainClose(event, created));
    created.on('closed', () => {
      if (window === created) window = undefined;
    });
    return created;
  };
  installMenu({
    showLogs: () => {
      // No window: open one at the logs page. Either way the event goes out once the page has loaded.
      const target = window ?? openWindow(LOGS_ROUTE);
      target.show();
      target.focus();
      whenLoaded(target.webContents, () => {
        sendShowLogs(target);
        void target.webContents.executeJavaScript(`location.hash = '#/${LOGS_ROUTE}'`).catch(() => undefined);
      });
    },
    restartBackend: () => void supervisor.restart(),
    resetPairing: () =>
      void resetPairingFromMenu({ supervisor, log, dataDir, pending: pendingReset, window: () => window ?? openWindow() }),
    openDataFolder: () => void shell.openPath(dataDir),
    openLogFolder: () => void shell.openPath(logDir),
    connectRemote: () => {
      const target = window ?? openWindow();
      target.show();
      target.focus();
      whenLoaded(target.webContents, () => sendConnectRemote(target));
    },
    useLocalBackend: () => void remotes.useLocal(),
    quickAsk: () => life.desktop?.openQuickAsk(),
  });
  // The renderer reads the backend's URL when its page loads: if a backend comes back on another
  // address (a backend outside the app went away and the app started its own), reload the page.
  let lastUrl: string | undefined;
  supervisor.onState((state) => {
    if (state.status !== 'ready') return;
    if (lastUrl !== undefined && state.url !== lastUrl && window && !window.isDestroyed()) window.webContents.reload();
    lastUrl = state.url;
  });
  openWindow();
  supervisor.start();
  life.desktop = await setUpDesktopLife({
    preload: paths.preload,
    rendererDir: paths.rendererDir,
    dataDir,
    showMain: () => {
      const target = window ?? openWindow();
      target.show();
      target.focus();
      return target;
    },
    log: (line) => process.stdout.write(`${line}\n`),
  });

  app.on('activate', () => {
    if (!window) openWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  let stopped = false;
  app.on('before-quit', (event) => {
    if (stopped) return;
    // Quit waits for the backend to stop (SIGTERM, then kill after 5 s) and the log file to be trimmed.
    // A backend the app did not start (external) is left running.
    event.preventDefault();
    stopped = true;
    life.desktop?.dispose();
    void supervisor
      .stop()
      .then(() => log.close())
      // A postponed update installs now, after its snapshot (quitAndInstall quits by itself).
      .then(() => life.desktop?.installPendingUpdate())
      .then(
        (installing) => (installing ? undefined : app.quit()),
        () => app.quit(),
      );
  });
}
