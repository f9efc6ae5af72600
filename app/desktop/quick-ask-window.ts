import type { BrowserWindowConstructorOptions, Rectangle } from 'electron';

/** The hash route of the quick-ask page (renderer/src/quick-ask/). */
export const QUICK_ASK_ROUTE = 'quick-ask';
export const QUICK_ASK_SIZE = { width: 560, height: 420 };

/**
 * A small always-on-top window, centred in the upper third of the display the pointer is on, with
 * the same locked-down web preferences as the main window.
 */
export function quickAskWindowOptions(preload: string, workArea: Rectangle): BrowserWindowConstructorOptions {
  const { width, height } = QUICK_ASK_SIZE;
  return {
    width,
    height,
    minWidth: 420,
    minHeight: 260,
    x: Math.round(workArea.x + (workArea.width - width) / 2),
    y: Math.round(workArea.y + Math.max(0, (workArea.height - height) / 3)),
    alwaysOnTop: true,
    skipTaskbar: true,
    minimizable: false,
    maximizable: false,
    fullscreenable: false,
    show: false,
    title: 'Quick Ask',
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
  };
}
