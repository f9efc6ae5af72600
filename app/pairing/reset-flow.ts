import { resetPairing } from '../../backend/cli/reset-pairing.js';
import type { LogBuffer } from '../logs/log-buffer.js';
import type { PairingCode } from '../logs/pairing-code.js';
import type { ResetResult } from '../ipc/contract.js';
import type { BackendState } from '../supervisor/backend-state.js';

export type { ResetResult };

/** The running backend's pairing status (no credential needed). */
export async function pairingBound(url: string): Promise<boolean> {
  const res = await fetch(`${url}/api/pairing/status`, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`GET /api/pairing/status answered ${res.status}`);
  return ((await res.json()) as { bound: boolean }).bound;
}

/**
 * "Reset pairing…": the data folder is paired (say, a browser paired earlier) and the desktop app
 * has no credential, so POST /api/selfhost/pairing/reset (which needs one) is out of reach. The
 * user of the app has proved access to the machine, so the app does what `reset-pairing` does:
 * it forgets the credential in the data folder; the running backend notices within a second, closes
 * the old sessions and logs a new code, which the app reads from its log buffer and pairs with.
 */
export async function resetPairingForApp(options: {
  dataDir: string;
  log: LogBuffer;
  state: BackendState;
  timeoutMs?: number;
}): Promise<ResetResult> {
  const { state, log } = options;
  if (state.status !== 'ready') throw new Error(`the backend is not running (${state.status})`);
  if (state.external) {
    await resetPairing(options.dataDir);
    return { code: null, external: true };
  }
  // Nothing to reset: the current code (shown on the pairing screen) is the one to use.
  if (!(await pairingBound(state.url))) return { code: log.pairingCode, external: false };
  const previous = log.pairingCode?.code;
  const timeoutMs = options.timeoutMs ?? 15_000;
  let cancel = () => {};
  // Subscribed before the reset: the backend may log the new code before resetPairing returns.
  const code = new Promise<PairingCode>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`the backend logged no new pairing code within ${timeoutMs / 1000} s after the reset`));
    }, timeoutMs);
    const off = log.onPairingCode((next) => {
      if (!next || next.code === previous) return;
      cancel();
      resolve(next);
    });
    cancel = () => {
      clearTimeout(timer);
      off();
    };
  });
  try {
    await resetPairing(options.dataDir);
  } catch (err) {
    cancel();
    throw new Error(`cannot reset pairing in ${options.dataDir}: ${(err as Error).message}`, { cause: err });
  }
  return { code: await code, external: false };
}

/** The code of a reset the user confirmed from the menu, handed to the renderer once. */
export class PendingResetCode {
  private code: PairingCode | null = null;

  constructor(private readonly log: LogBuffer) {}

  set(code: PairingCode | null): void {
    this.code = code;
  }

  /** Only while it is still the backend's current code (not used, not replaced). */
  take(): PairingCode | null {
    const code = this.code;
    this.code = null;
    return code && this.log.pairingCode?.code === code.code ? code : null;
  }
}
