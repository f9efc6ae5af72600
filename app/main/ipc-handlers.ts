import { dialog, ipcMain, nativeTheme, shell, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { EVENTS, INVOKE, type EventChannel, type EventPayloads, type InvokeChannel } from '../ipc/contract.js';
import { handleRequest, type InvokeHandler } from '../ipc/validate.js';
import type { LogBuffer } from '../logs/log-buffer.js';
import type { LogLine } from '../logs/ring-buffer.js';
import { resetPairingForApp, type PendingResetCode } from '../pairing/reset-flow.js';
import type { BackendSupervisor } from '../supervisor/backend-supervisor.js';
import type { CredentialStore } from './credential-store.js';

export interface IpcDeps {
  supervisor: BackendSupervisor;
  log: LogBuffer;
  credentials: CredentialStore;
  pendingReset: PendingResetCode;
  folders: { data: string; logs: string };
  window: () => BrowserWindow | undefined;
}

/** New log lines reach the renderer at most this often, in one message. */
const LOG_BATCH_MS = 100;

export function handle<C extends InvokeChannel>(channel: C, handler: InvokeHandler<C>): void {
  // The sender is checked on the frame that sent the message, not on the window's main frame.
  ipcMain.handle(channel, (event: IpcMainInvokeEvent, payload: unknown) =>
    handleRequest(channel, event.senderFrame?.url, payload, handler),
  );
}

async function openFolder(folder: string): Promise<null> {
  const error = await shell.openPath(folder);
  if (error) throw new Error(`cannot open ${folder}: ${error}`);
  return null;
}

export function registerIpc(deps: IpcDeps): void {
  const { supervisor, log, credentials } = deps;
  handle(INVOKE.backendState, () => supervisor.state);
  handle(INVOKE.backendRestart, async () => {
    await supervisor.restart();
    return null;
  });
  handle(INVOKE.backendLogs, (payload) => log.lines(payload?.since ?? 0));
  handle(INVOKE.pairingCode, () => log.pairingCode);
  handle(INVOKE.pairingReset, () => resetPairingForApp({ dataDir: deps.folders.data, log, state: supervisor.state }));
  handle(INVOKE.pairingTakeReset, () => deps.pendingReset.take());
  handle(INVOKE.foldersOpen, ({ folder }) => openFolder(deps.folders[folder]));
  handle(INVOKE.foldersPick, async () => {
    const window = deps.window();
    const options = { properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[] };
    const result = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
    return result.canceled ? null : (result.filePaths[0] ?? null);
  });
  handle(INVOKE.credentialStore, async ({ credential }) => {
    await credentials.store(credential);
    return null;
  });
  handle(INVOKE.credentialRead, () => credentials.read());
  handle(INVOKE.credentialClear, async () => {
    await credentials.clear();
    return null;
  });
  handle(INVOKE.themeSet, ({ choice }) => {
    // `system` follows the OS; the renderer's prefers-color-scheme follows nativeTheme either way.
    nativeTheme.themeSource = choice;
    return null;
  });

  const send = <E extends EventChannel>(channel: E, payload: EventPayloads[E]) => {
    const window = deps.window();
    if (window && !window.isDestroyed()) window.webContents.send(channel, payload);
  };
  supervisor.onState((state) => send(EVENTS.backendStateChanged, state));
  log.onPairingCode((code) => send(EVENTS.pairingCodeChanged, code));
  let batch: LogLine[] = [];
  let timer: NodeJS.Timeout | undefined;
  log.onLine((line) => {
    batch.push(line);
    timer ??= setTimeout(() => {
      timer = undefined;
      const lines = batch.length > log.capacity ? batch.slice(-log.capacity) : batch;
      batch = [];
      send(EVENTS.backendLogLines, lines);
    }, LOG_BATCH_MS);
  });
}

export function sendShowLogs(window: BrowserWindow | undefined): void {
  if (window && !window.isDestroyed()) window.webContents.send(EVENTS.menuShowLogs, null);
}
