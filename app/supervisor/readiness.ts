import type { ChildProcess } from 'node:child_process';
import type { LogBuffer } from '../logs/log-buffer.js';
import type { LogLine } from '../logs/ring-buffer.js';

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

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
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
  child: ChildProcess,
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
      child.off('exit', onExit);
      child.off('error', onError);
      if (err) reject(err);
      else resolve({ url: url!, port, swapUrl });
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      finish(new StartFailure(`the backend ${describeExit(code, signal)} before it was ready`, code ?? (signal ? -1 : null)));
    const onError = (err: Error) => finish(new StartFailure(`cannot start the backend: ${err.message}`, null));
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
    child.once('exit', onExit);
    child.once('error', onError);
    if (child.exitCode !== null || child.signalCode !== null) onExit(child.exitCode, child.signalCode);
  });
}
