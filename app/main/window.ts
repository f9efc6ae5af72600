import { BrowserWindow } from 'electron';

export const RENDERER_START_URL = 'app://renderer/';

/** The one window. Every web preference that matters for security is spelled out, not defaulted. */
export function createMainWindow(preload: string): BrowserWindow {
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Service',
    webPreferences: {
      preload,
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
  window.once('ready-to-show', () => window.show());
  void window.loadURL(RENDERER_START_URL);
  return window;
}
