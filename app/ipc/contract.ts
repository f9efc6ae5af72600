/**
 * The one contract between the main process and the preload: channel names (prefixed by area),
 * payload schemas validated in main, result and event types, and the API the preload exposes
 * as `window.serviceApp`. The renderer imports `ServiceAppApi` type-only.
 */
import { z } from 'zod';
import type { PairingCode } from '../logs/pairing-code.js';
import type { LogLine } from '../logs/ring-buffer.js';
import type { PairOutcome, ProbeOutcome, Refusal, RemotesState } from '../remote/remote-api.js';
import type { BackendState } from '../supervisor/backend-state.js';

export type { BackendState, LogLine, PairingCode, PairOutcome, ProbeOutcome, Refusal, RemotesState };
export type { ActiveBackend, RemoteProbe, RemoteSummary } from '../remote/remote-api.js';

/** What "Reset pairing…" did. */
export interface ResetResult {
  /** The new code, read from the app's own backend log; null for a backend the app did not start. */
  code: PairingCode | null;
  /** The backend runs outside the app: its new code is in its own output, not in the app's log. */
  external: boolean;
}

/** Renderer -> main requests (ipcRenderer.invoke). */
export const INVOKE = {
  backendState: 'backend:state',
  backendRestart: 'backend:restart',
  backendLogs: 'backend:logs',
  pairingCode: 'pairing:code',
  pairingReset: 'pairing:reset',
  pairingTakeReset: 'pairing:take-reset',
  foldersOpen: 'folders:open',
  foldersPick: 'folders:pick',
  credentialStore: 'credential:store',
  credentialRead: 'credential:read',
  credentialClear: 'credential:clear',
  themeSet: 'theme:set',
  desktopSettings: 'desktop:settings',
  desktopSetShortcut: 'desktop:set-shortcut',
  desktopSetCloseToTray: 'desktop:set-close-to-tray',
  desktopOpenInMain: 'desktop:open-in-main',
  remoteState: 'remote:state',
  remoteProbe: 'remote:probe',
  remotePair: 'remote:pair',
  remoteUse: 'remote:use',
  remoteForget: 'remote:forget',
  previewOpen: 'preview:open',
} as const;

/** Main -> renderer events (webContents.send). */
export const EVENTS = {
  backendStateChanged: 'backend:state-changed',
  backendLogLines: 'backend:log-lines',
  pairingCodeChanged: 'pairing:code-changed',
  pairingResetDone: 'pairing:reset-done',
  menuShowLogs: 'menu:show-logs',
  appCommand: 'app:command',
  menuConnectRemote: 'menu:connect-remote',
  remoteRefused: 'remote:refused',
} as const;

export type InvokeChannel = (typeof INVOKE)[keyof typeof INVOKE];

/** The largest artifact the full-size preview window takes (a long HTML page or a big diagram's SVG). */
export const PREVIEW_MAX_CHARS = 16 * 1024 * 1024;
export type EventChannel = (typeof EVENTS)[keyof typeof EVENTS];

/**
 * Payload schemas, one per request channel: main validates every payload before use. Built in a
 * pure IIFE so the preload bundle, which needs only the channel names, drops zod entirely.
 */
export const REQUEST_SCHEMAS = /* @__PURE__ */ (() => {
  const noPayload = z.undefined({ error: 'takes no payload' });
  return {
    'backend:state': noPayload,
    'backend:restart': noPayload,
    'backend:logs': z.strictObject({ since: z.int().min(0, 'must be an integer >= 0').optional() }).optional(),
    'pairing:code': noPayload,
    'pairing:reset': noPayload,
    'pairing:take-reset': noPayload,
    'folders:open': z.strictObject({ folder: z.enum(['data', 'logs'], 'must be "data" or "logs"') }),
    'folders:pick': noPayload,
    'credential:store': z.strictObject({
      credential: z.string().regex(/^svc_[A-Za-z0-9_-]{43}$/, 'must be a service credential (svc_ and 43 base64url characters)'),
    }),
    'credential:read': noPayload,
    'credential:clear': noPayload,
    'theme:set': z.strictObject({ choice: z.enum(['system', 'light', 'dark'], 'must be "system", "light" or "dark"') }),
    'desktop:settings': noPayload,
    'desktop:set-shortcut': z.strictObject({
      accelerator: z.string().min(1, 'must not be empty').max(80, 'must be at most 80 characters'),
    }),
    'desktop:set-close-to-tray': z.strictObject({ enabled: z.boolean('must be true or false') }),
    'desktop:open-in-main': z.strictObject({
      workspace_id: z.string().min(1).max(200),
      session_id: z.string().min(1).max(200),
    }),
    'remote:state': noPayload,
    'remote:probe': z.strictObject({
      url: z.string('must be a string').min(1, 'must not be empty').max(2000, 'must be at most 2000 characters'),
      allow_insecure: z.boolean('must be true or false').optional(),
    }),
    'remote:pair': z.strictObject({
      origin: z.string().regex(/^https?:\/\/[^/\s]+$/, 'must be an origin (https://host:port)'),
      fingerprint: z
        .string()
        .regex(/^SHA256(:[0-9A-F]{2}){32}$/, 'must be the fingerprint the probe returned (SHA256: and 32 hex pairs)')
        .nullable(),
      code: z.string().regex(/^\d{6}$/, 'must be 6 digits'),
      device_name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
    }),
    'remote:use': z.strictObject({
      target: z.string().regex(/^(local|https?:\/\/[^/\s]+)$/, 'must be "local" or a paired origin'),
    }),
    'remote:forget': z.strictObject({ origin: z.string().regex(/^https?:\/\/[^/\s]+$/, 'must be an origin (https://host:port)') }),
    'preview:open': z.strictObject({
      kind: z.enum(['html', 'svg', 'diagram'], 'must be "html", "svg" or "diagram" (a drawn Mermaid diagram)'),
      code: z.string('must be a string').max(PREVIEW_MAX_CHARS, `must be at most ${PREVIEW_MAX_CHARS} characters`),
      title: z.string('must be a string').trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    }),
  } satisfies Record<InvokeChannel, z.ZodType>;
})();

export type RequestPayload<C extends InvokeChannel> = z.infer<(typeof REQUEST_SCHEMAS)[C]>;

export interface ResponseValues {
  'backend:state': BackendState;
  'backend:restart': null;
  'backend:logs': LogLine[];
  'pairing:code': PairingCode | null;
  'pairing:reset': ResetResult;
  'pairing:take-reset': PairingCode | null;
  'folders:open': null;
  /** The folder the user chose, or null when the dialog was cancelled. */
  'folders:pick': string | null;
  'credential:store': null;
  'credential:read': string | null;
  'credential:clear': null;
  'theme:set': null;
  'desktop:settings': DesktopState;
  'desktop:set-shortcut': ShortcutChange;
  'desktop:set-close-to-tray': DesktopState;
  'desktop:open-in-main': null;
  'remote:state': RemotesState;
  'remote:probe': ProbeOutcome;
  'remote:pair': PairOutcome;
  /** The window reloads on the chosen backend right after answering. */
  'remote:use': null;
  'remote:forget': RemotesState;
  /** The full-size preview window is open (it shows the artifact once its page has loaded). */
  'preview:open': null;
}

/** An artifact for the desktop full-size preview window (docs/artifacts.md). */
export type PreviewOpen = RequestPayload<'preview:open'>;

/** The desktop shell's settings as the renderer shows them. */
export interface DesktopState {
  quick_ask_shortcut: string;
  /** The shortcut that works now (null: none could be registered). */
  active_shortcut: string | null;
  close_to_tray: boolean;
  /** False on desktops without a tray (then close-to-tray has no effect). */
  tray: boolean;
}

/** A shortcut change: the new state, or why it was refused (the old shortcut stays). */
export type ShortcutChange =
  { ok: true; state: DesktopState } | { ok: false; reason: 'invalid' | 'taken'; message: string; state: DesktopState };

/** Commands from the shell to the main window's renderer (tray's New chat, quick ask's "open in main"). */
export type AppCommandPayload = { type: 'new-chat' } | { type: 'open-session'; workspaceId: string; sessionId: string };

export interface EventPayloads {
  'backend:state-changed': BackendState;
  /** New lines in batches (a busy backend can log thousands per second). */
  'backend:log-lines': LogLine[];
  'pairing:code-changed': PairingCode | null;
  /** "Reset pairing…" from the menu is done; the code is taken with `pairing.takeResetCode()`. */
  'pairing:reset-done': null;
  'menu:show-logs': null;
  'app:command': AppCommandPayload;
  /** File → "Connect to another backend…". */
  'menu:connect-remote': null;
  /** The remote in use presented a certificate other than the pinned one (Chromium refused it). */
  'remote:refused': Refusal;
}

export interface IpcError {
  code: 'untrusted_sender' | 'invalid_payload' | 'unavailable' | 'failed';
  message: string;
}

/** Electron drops custom error classes across IPC, so every request resolves to one of these. */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

export type Unsubscribe = () => void;

/** `window.serviceApp` in the renderer. */
export interface ServiceAppApi {
  backend: {
    /** The backend's state; when `ready` it carries the API URL (`url`) and the swap builder's. */
    getState(): Promise<IpcResult<BackendState>>;
    onStateChanged(listener: (state: BackendState) => void): Unsubscribe;
    restart(): Promise<IpcResult<null>>;
  };
  pairing: {
    getCode(): Promise<IpcResult<PairingCode | null>>;
    onCodeChanged(listener: (code: PairingCode | null) => void): Unsubscribe;
    /**
     * "Reset pairing…": forgets whoever paired with the data folder and returns the backend's new
     * code (null when the backend runs outside the app: its code is in its own output).
     */
    reset(): Promise<IpcResult<ResetResult>>;
    /** The code of a reset confirmed from the menu, once, while it is still the current code. */
    takeResetCode(): Promise<IpcResult<PairingCode | null>>;
    onResetDone(listener: () => void): Unsubscribe;
  };
  logs: {
    /** Buffered lines with seq > since (at most the 2000 most recent). */
    getLines(since?: number): Promise<IpcResult<LogLine[]>>;
    onLines(listener: (lines: LogLine[]) => void): Unsubscribe;
    /** The menu's "Show logs". */
    onShowLogs(listener: () => void): Unsubscribe;
  };
  folders: {
    open(folder: 'data' | 'logs'): Promise<IpcResult<null>>;
    /** The system's folder picker (the catalog's filesystem server). */
    pick(): Promise<IpcResult<string | null>>;
  };
  credential: {
    /** Encrypted with the OS keychain (safeStorage) before it touches the disk. */
    store(credential: string): Promise<IpcResult<null>>;
    read(): Promise<IpcResult<string | null>>;
    clear(): Promise<IpcResult<null>>;
  };
  desktop: {
    getSettings(): Promise<IpcResult<DesktopState>>;
    /** Registers the global quick-ask shortcut; a clash is reported and the old one stays. */
    setShortcut(accelerator: string): Promise<IpcResult<ShortcutChange>>;
    setCloseToTray(enabled: boolean): Promise<IpcResult<DesktopState>>;
    /** From the quick-ask window: show this chat in the main window. */
    openInMain(workspaceId: string, sessionId: string): Promise<IpcResult<null>>;
    onCommand(listener: (command: AppCommandPayload) => void): Unsubscribe;
  };
  remote: {
    /** Which backend the window uses; a pinned remote's certificate is checked first (refused on change). */
    getState(): Promise<IpcResult<RemotesState>>;
    /** First contact: URL rules, then the pairing status and the served certificate's fingerprint. */
    probe(url: string, allowInsecure?: boolean): Promise<IpcResult<ProbeOutcome>>;
    /** Pairs over the compared certificate (invite code, or pairing code if unpaired), pins it, and switches. */
    pair(input: { origin: string; fingerprint: string | null; code: string; device_name?: string }): Promise<IpcResult<PairOutcome>>;
    /** Switches the window to `local` or a paired remote (the window reloads). */
    use(target: string): Promise<IpcResult<null>>;
    /** Forgets a remote's pin and credential (re-pairing goes through the probe again). */
    forget(origin: string): Promise<IpcResult<RemotesState>>;
    onConnectRequested(listener: () => void): Unsubscribe;
    onRefused(listener: (refusal: Refusal) => void): Unsubscribe;
  };
  preview: {
    /** "Open full size": the artifact in a window of its own, as sandboxed as the in-chat preview. */
    open(input: PreviewOpen): Promise<IpcResult<null>>;
  };
  theme: {
    /** The renderer's theme choice, so the window's own parts (title bar, menus, dialogs) match (nativeTheme). */
    set(choice: 'system' | 'light' | 'dark'): Promise<IpcResult<null>>;
  };
}
