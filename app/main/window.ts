import { app, BrowserWindow, dialog } from 'electron';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isReportableLoadFailure, loadFailureDetail, startUrl } from './page-load.js';

export const RENDERER_START_URL = 'app://renderer/';
/** A window whose page never paints is shown anyway after this long, instead of staying invisible. */
const SHOW_ANYWAY_MS = 10_000;

async function offerRetry(window: BrowserWindow, reason: string, url: string): Promise<void> {
  if (window.isDestroyed()) return;
  const { response } = await dialog.showMessageBox(window, {
    type: 'error',
    buttons: ['Retry', 'Quit'],
    defaultId: 0,
    cancelId: 1,
    message: 'The app’s page could not be loaded',
    detail: loadFailureDetail(reason, url),
  });
  if (window.isDestroyed()) return;
  if (response === 0) load(window, url);
  else app.quit();
}

function load(window: BrowserWindow, url: string, rendererDir?: string): void {
  if (rendererDir && !existsSync(path.join(rendererDir, 'index.html'))) {
    void offerRetry(window, `the renderer files are missing in ${rendererDir} (npm run build builds them)`, url);
    return;
  }
  // Failures arrive as did-fail-load, which offers the retry.
  window.loadURL(url).catch(() => undefined);
}

/** The one window. Every web preference that matters for security is spelled out, not defaulted. */
export function createMainWindow(options: { preload: string; rendererDir: string; route?: string }): BrowserWindow {
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Service',
    webPreferences: {
      preload: options.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false,
    },
  });
  const url = startUrl(RENDERER_START_URL, options.route);
  const show = () => {
    if (!window.isDestroyed() && !window.isVisible()) window.show();
  };
  window.once('ready-to-show', show);
  const fallback = setTimeout(show, SHOW_ANYWAY_MS);
  window.once('closed', () => clearTimeout(fallback));
  window.webContents.on('did-fail-load', (_event, errorCode, errorDescription, validatedURL, isMainFrame) => {
    if (!isReportableLoadFailure(errorCode, isMainFrame)) return;
    show();
    void offerRetry(window, `${errorDescription} (${errorCode})`, validatedURL || url);
  });
  window.webContents.on('render-process-gone', (_event, details) => {
    if (details.reason === 'clean-exit') return;
    show();
    void offerRetry(window, `the page’s process ended (${details.reason}, exit code ${details.exitCode})`, url);
  });
  load(window, url, options.rendererDir);
  return window;
}
