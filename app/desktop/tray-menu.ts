import type { MenuItemConstructorOptions } from 'electron';

export interface TrayActions {
  newChat(): void;
  quickAsk(): void;
  show(): void;
  quit(): void;
}

/** The tray icon's menu (DESIGN.md 12): New chat, Quick ask, Show, Quit; the shortcut shown on Quick ask. */
export function trayMenuTemplate(actions: TrayActions, quickAskAccelerator: string | null): MenuItemConstructorOptions[] {
  return [
    { label: 'New Chat', click: () => actions.newChat() },
    { label: 'Quick Ask', accelerator: quickAskAccelerator ?? undefined, registerAccelerator: false, click: () => actions.quickAsk() },
    { label: 'Show Service', click: () => actions.show() },
    { type: 'separator' },
    { label: 'Quit', click: () => actions.quit() },
  ];
}

/**
 * Closing the main window: keep the app in the tray only when the user chose so and a tray exists
 * (some Linux desktops have none), and never while the app is quitting.
 */
export function keepInTrayOnClose(options: { closeToTray: boolean; hasTray: boolean; quitting: boolean }): boolean {
  return options.closeToTray && options.hasTray && !options.quitting;
}
