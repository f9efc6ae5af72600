// Electron main process: wiring only. The logic lives in plain modules (supervisor, logs, ipc).
import { app, shell, utilityProcess, type BrowserWindow } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDataDir } from '../../backend/data/data-dir.js';
import { runtimePaths } from '../build-layout.js';
import { LogBuffer } from '../logs/log-buffer.js';
import { LogFileMirror } from '../logs/log-file-mirror.js';
import { BackendSupervisor } from '../supervisor/backend-supervisor.js';
import { findRunningBackend } from '../supervisor/running-backend.js';
import { utilityProcessLauncher } from '../supervisor/utility-process.js';
import { CredentialStore } from './credential-store.js';
import { registerIpc, sendShowLogs } from './ipc-handlers.js';
import { installMenu } from './menu.js';
import { registerRendererScheme, serveRenderer } from './protocol.js';
import { hardenWebContents } from './security.js';
import { createMainWindow } from './window.js';

const MAIN_DIR = path.dirname(fileURLToPath(import.meta.url));

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
    findRunning: () => findRunningBackend(dataDir),
  });
  const credentials = new CredentialStore(path.join(app.getPath('userData'), 'credential.enc'));

  hardenWebContents();
  serveRenderer(paths.rendererDir);
  registerIpc({ supervisor, log, credentials, folders: { data: dataDir, logs: logDir }, window: () => window });
  const openWindow = () => {
    window = createMainWindow(paths.preload);
    window.on('closed', () => (window = undefined));
  };
  installMenu({
    showLogs: () => {
      if (!window) openWindow();
      window?.show();
      sendShowLogs(window);
    },
    restartBackend: () => void supervisor.restart(),
    openDataFolder: () => void shell.openPath(dataDir),
    openLogFolder: () => void shell.openPath(logDir),
  });
  openWindow();
  supervisor.start();

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
    event.preventDefault();
    stopped = true;
    void supervisor
      .stop()
      .then(() => log.close())
      .finally(() => app.quit());
  });
}
