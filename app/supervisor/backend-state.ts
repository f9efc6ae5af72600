/** Where the supervised backend is; the renderer shows it and the tests wait on it. */
export type BackendState =
  | { status: 'idle' }
  | { status: 'starting'; attempt: number; port: number }
  | {
      status: 'ready';
      url: string;
      port: number;
      swapUrl: string | null;
      pid: number;
      readyAt: number;
      /** True when it is a backend that was already running for the data folder (not started by the app). */
      external: boolean;
    }
  | { status: 'waiting-to-restart'; attempt: number; delayMs: number; reason: string }
  | { status: 'failed'; reason: string; exitCode: number | null; lastLines: string[]; attempts: number }
  | { status: 'stopping' }
  | { status: 'stopped' };

export type BackendStatus = BackendState['status'];

/** Time constants, injectable so tests run in milliseconds. */
export interface SupervisorTiming {
  /** First restart delay; doubles per consecutive failure. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** This long healthy resets the failure count (and so the backoff). */
  healthyResetMs: number;
  /** From spawn to `listening on` + `/health` 200. */
  readyTimeoutMs: number;
  /** After SIGTERM, how long before the process tree is killed. */
  killTimeoutMs: number;
  healthPollMs: number;
  /** Consecutive failed starts or crashes before giving up. */
  maxFailures: number;
  /** How often a backend running outside the app is checked for still being there. */
  externalPollMs: number;
}

export const DEFAULT_TIMING: SupervisorTiming = {
  backoffBaseMs: 1000,
  backoffMaxMs: 30_000,
  healthyResetMs: 60_000,
  readyTimeoutMs: 20_000,
  killTimeoutMs: 5000,
  healthPollMs: 100,
  maxFailures: 5,
  externalPollMs: 2000,
};

/** Delay before restart number `failures` (1-based): base, 2*base, 4*base … capped. */
export function backoffDelay(failures: number, timing: Pick<SupervisorTiming, 'backoffBaseMs' | 'backoffMaxMs'>): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  return Math.min(timing.backoffBaseMs * 2 ** exponent, timing.backoffMaxMs);
}
