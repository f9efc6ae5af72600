/**
 * The desktop shell's preload API (`window.serviceApp`), when the renderer runs inside Electron.
 * Declared here as a narrow optional interface until the shell's own contract type lands; in a
 * plain browser it is absent and every caller falls back to HTTP and local storage.
 */
export interface ShellLogLine {
  seq?: number;
  time?: string;
  stream: string;
  line: string;
}

/** Across IPC the shell answers `{ok, value} | {ok:false, error}`; plain values are accepted too. */
export type ShellResult<T> = { ok: true; value: T } | { ok: false; error: string | { message?: string } };

export interface ShellBridge {
  getBackend?(): Promise<ShellResult<{ url: string; state?: string }> | { url: string; state?: string }>;
  getPairingCode?(): Promise<ShellResult<string | null> | string | null>;
  getLogs?(): Promise<ShellResult<ShellLogLine[]> | ShellLogLine[]>;
  onLog?(listener: (line: ShellLogLine) => void): () => void;
  storeCredential?(backendUrl: string, credential: string): Promise<unknown>;
  readCredential?(backendUrl: string): Promise<ShellResult<string | null> | string | null>;
  clearCredential?(backendUrl: string): Promise<unknown>;
  restartBackend?(): Promise<unknown>;
  openDataFolder?(): Promise<unknown>;
  openLogsFolder?(): Promise<unknown>;
}

declare global {
  interface Window {
    serviceApp?: ShellBridge;
  }
}

export function shell(): ShellBridge | undefined {
  return typeof window !== 'undefined' ? window.serviceApp : undefined;
}

function isResult<T>(value: unknown): value is ShellResult<T> {
  return typeof value === 'object' && value !== null && 'ok' in value && typeof (value as { ok: unknown }).ok === 'boolean';
}

/** Unwraps a shell answer; a failed result throws with the shell's message. */
export async function fromShell<T>(call: Promise<ShellResult<T> | T>): Promise<T> {
  const value = await call;
  if (!isResult<T>(value)) return value as T;
  if (value.ok) return value.value;
  const error = value.error;
  throw new Error(typeof error === 'string' ? error : (error?.message ?? 'desktop shell error'));
}
