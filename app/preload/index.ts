// Sandboxed preload (built as CommonJS): exposes the narrow `window.serviceApp` API, never ipcRenderer.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { EVENTS, INVOKE, type EventChannel, type EventPayloads, type ServiceAppApi } from '../ipc/contract.js';

function subscribe<E extends EventChannel>(channel: E, listener: (payload: EventPayloads[E]) => void): () => void {
  const wrapped = (_event: IpcRendererEvent, payload: EventPayloads[E]) => listener(payload);
  ipcRenderer.on(channel, wrapped);
  return () => ipcRenderer.removeListener(channel, wrapped);
}

const api = {
  backend: {
    getState: () => ipcRenderer.invoke(INVOKE.backendState),
    onStateChanged: (listener) => subscribe(EVENTS.backendStateChanged, listener),
    restart: () => ipcRenderer.invoke(INVOKE.backendRestart),
  },
  pairing: {
    getCode: () => ipcRenderer.invoke(INVOKE.pairingCode),
    onCodeChanged: (listener) => subscribe(EVENTS.pairingCodeChanged, listener),
    reset: () => ipcRenderer.invoke(INVOKE.pairingReset),
    takeResetCode: () => ipcRenderer.invoke(INVOKE.pairingTakeReset),
    onResetDone: (listener) => subscribe(EVENTS.pairingResetDone, () => listener()),
  },
  logs: {
    getLines: (since) => ipcRenderer.invoke(INVOKE.backendLogs, since === undefined ? undefined : { since }),
    onLines: (listener) => subscribe(EVENTS.backendLogLines, listener),
    onShowLogs: (listener) => subscribe(EVENTS.menuShowLogs, () => listener()),
  },
  folders: {
    open: (folder) => ipcRenderer.invoke(INVOKE.foldersOpen, { folder }),
    pick: () => ipcRenderer.invoke(INVOKE.foldersPick),
  },
  credential: {
    store: (credential) => ipcRenderer.invoke(INVOKE.credentialStore, { credential }),
    read: () => ipcRenderer.invoke(INVOKE.credentialRead),
    clear: () => ipcRenderer.invoke(INVOKE.credentialClear),
  },
  preview: {
    open: (input) => ipcRenderer.invoke(INVOKE.previewOpen, input),
  },
  theme: {
    set: (choice) => ipcRenderer.invoke(INVOKE.themeSet, { choice }),
  },
  desktop: {
    getSettings: () => ipcRenderer.invoke(INVOKE.desktopSettings),
    setShortcut: (accelerator) => ipcRenderer.invoke(INVOKE.desktopSetShortcut, { accelerator }),
    setCloseToTray: (enabled) => ipcRenderer.invoke(INVOKE.desktopSetCloseToTray, { enabled }),
    openInMain: (workspaceId, sessionId) =>
      ipcRenderer.invoke(INVOKE.desktopOpenInMain, { workspace_id: workspaceId, session_id: sessionId }),
    onCommand: (listener) => subscribe(EVENTS.appCommand, listener),
  },
  remote: {
    getState: () => ipcRenderer.invoke(INVOKE.remoteState),
    probe: (url, allowInsecure) =>
      ipcRenderer.invoke(INVOKE.remoteProbe, allowInsecure === undefined ? { url } : { url, allow_insecure: allowInsecure }),
    pair: (input) => ipcRenderer.invoke(INVOKE.remotePair, input),
    use: (target) => ipcRenderer.invoke(INVOKE.remoteUse, { target }),
    forget: (origin) => ipcRenderer.invoke(INVOKE.remoteForget, { origin }),
    onConnectRequested: (listener) => subscribe(EVENTS.menuConnectRemote, () => listener()),
    onRefused: (listener) => subscribe(EVENTS.remoteRefused, listener),
  },
} satisfies ServiceAppApi;

contextBridge.exposeInMainWorld('serviceApp', api);
