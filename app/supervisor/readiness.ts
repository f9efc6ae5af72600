import type { LogBuffer } from '../logs/log-buffer.js';
import type { LogLine } from '../logs/ring-buffer.js';
import { describeExit, type BackendProcess } from './launcher.js';

const LISTENING = /^listening on (http:\/\/\S+:(\d+))$/;
const SWAP_LISTENING = /^swap builder listening on (http:\/\/\S+:(\d+))$/;

export interface ReadyInfo {
  url: string;
  port: number;
  swapUrl: string | null;
}

/** Why a start failed: the exit code when the process died, null when it was still running. */
export class StartFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
  }
}

async function healthy(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * Ready = the documented `listening on` line (plus the swap line when the swap builder is on)
 * and then `GET /health` answering 200, all within `timeoutMs`. Rejects with a StartFailure
 * saying why: the exit code, or what was still missing at the deadline.
 */
export function waitForReady(
  proc: BackendProcess,
  log: LogBuffer,
  options: { timeoutMs: number; pollMs: number; expectSwap: boolean },
): Promise<ReadyInfo> {
  return new Promise((resolve, reject) => {
    let url: string | null = null;
    let port = 0;
    let swapUrl: string | null = null;
    let settled = false;
    let polling = false;
    const deadline = Date.now() + options.timeoutMs;

    const finish = (err: StartFailure | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      if (err) reject(err);
      else resolve({ url: url!, port, swapUrl });
    };
    const timer = setTimeout(() => {
      const missing =
        url === null ? 'no "listening on" line' : !polling ? 'no "swap builder listening on" line' : 'GET /health never answered 200';
      finish(new StartFailure(`the backend was not ready within ${options.timeoutMs} ms (${missing})`, null));
    }, options.timeoutMs);

    const poll = async () => {
      polling = true;
      while (!settled && Date.now() < deadline) {
        if (await healthy(url!, Math.max(options.pollMs, 1000))) return finish(null);
        await new Promise((r) => setTimeout(r, options.pollMs));
      }
    };
    const onLine = (entry: LogLine) => {
      if (entry.stream !== 'stdout' || settled) return;
      let m: RegExpExecArray | null;
      if (url === null && (m = LISTENING.exec(entry.line))) {
        url = m[1].replace('://[::1]', '://localhost');
        port = Number(m[2]);
      } else if (swapUrl === null && (m = SWAP_LISTENING.exec(entry.line))) {
        swapUrl = m[1];
      } else return;
      if (url !== null && (swapUrl !== null || !options.expectSwap) && !polling) void poll();
    };
    const unsubscribe = log.onLine(onLine);
    void proc.exited.then((exit) =>
      finish(
        exit.error
          ? new StartFailure(`cannot start the backend: ${exit.error}`, null)
          : new StartFailure(`the backend ${describeExit(exit)} before it was ready`, exit.code ?? (exit.signal ? -1 : null)),
      ),
    );
  });
}
