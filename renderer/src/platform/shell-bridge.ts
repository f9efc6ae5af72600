import type { BackendState, IpcResult, LogLine, ServiceAppApi } from '../../../app/ipc/contract.js';

/**
 * The desktop shell's preload API (`window.serviceApp`, typed by the shell's IPC contract). In a
 * plain browser it is absent and every caller falls back to HTTP and local storage.
 */
export type { BackendState, LogLine as ShellLogLine };

declare global {
  interface Window {
    serviceApp?: ServiceAppApi;
  }
}

export function shell(): ServiceAppApi | undefined {
  return typeof window !== 'undefined' ? window.serviceApp : undefined;
}

/** Unwraps an IPC result; a failed one throws with the shell's message. */
export async function fromShell<T>(call: Promise<IpcResult<T>>): Promise<T> {
  const result = await call;
  if (result.ok) return result.value;
  throw new Error(result.error.message);
}

/** The bundled backend once it is ready (the shell may still be starting it). */
export function shellBackendReady(
  api: ServiceAppApi,
  onProgress: (state: BackendState) => void,
): Promise<Extract<BackendState, { status: 'ready' }>> {
  return new Promise((resolve, reject) => {
    const subscription: { off?: () => void } = {};
    const check = (state: BackendState) => {
      onProgress(state);
      if (state.status === 'ready') {
        subscription.off?.();
        resolve(state);
      }
    };
    subscription.off = api.backend.onStateChanged(check);
    fromShell(api.backend.getState()).then(check, (err) => {
      subscription.off?.();
      reject(err);
    });
  });
}
