import { app, Menu, type MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  showLogs(): void;
  restartBackend(): void;
  resetPairing(): void;
  openDataFolder(): void;
  openLogFolder(): void;
  connectRemote(): void;
  useLocalBackend(): void;
  quickAsk(): void;
}

export function installMenu(actions: MenuActions): void {
  const isMac = process.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        // Also on the tray and the global shortcut; here for desktops without a tray area.
        { id: 'quick-ask', label: 'Quick Ask', click: () => actions.quickAsk() },
        { type: 'separator' },
        { label: 'Show Logs', accelerator: 'CmdOrCtrl+L', click: () => actions.showLogs() },
        { label: 'Restart Backend', click: () => actions.restartBackend() },
        { label: 'Reset Pairing…', click: () => actions.resetPairing() },
        { type: 'separator' },
        { label: 'Connect to Another Backend…', click: () => actions.connectRemote() },
        { label: 'Use the Local Backend', click: () => actions.useLocalBackend() },
        { type: 'separator' },
        { label: 'Open Data Folder', click: () => actions.openDataFolder() },
        { label: 'Open Log Folder', click: () => actions.openLogFolder() },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        ...(app.isPackaged ? [] : [{ role: 'toggleDevTools' as const }]),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
