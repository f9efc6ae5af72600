import { spawn } from 'node:child_process';
import type { ExitInfo, Launcher } from './launcher.js';

/**
 * The part of Electron's UtilityProcess the launcher uses (structural, so this module never
 * imports `electron` and runs under Node in the tests with a fake backed by a real process).
 */
export interface UtilityProcessLike {
  readonly pid: number | undefined;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  once(event: 'spawn', listener: () => void): unknown;
  once(event: 'exit', listener: (code: number) => void): unknown;
  on(event: 'error', listener: (type: string, location: string, report: string) => void): unknown;
  kill(): boolean;
}

export interface UtilityForkOptions {
  env: NodeJS.ProcessEnv;
  stdio: ['ignore', 'pipe', 'pipe'];
  serviceName: string;
}

/** `utilityProcess.fork` from Electron's main process. */
export type UtilityFork = (modulePath: string, args: string[], options: UtilityForkOptions) => UtilityProcessLike;

/**
 * Starts the backend with `utilityProcess.fork`: Electron's own Node in a Chromium utility
 * process, so the RunAsNode fuse can stay off. Chromium ends its utility processes with the
 * browser process, so no orphan is left when the app dies.
 */
export function utilityProcessLauncher(fork: UtilityFork): Launcher {
  return ({ entry, args, env }) => {
    const env2 = { ...env };
    delete env2.ELECTRON_RUN_AS_NODE;
    const child = fork(entry, args, { env: env2, stdio: ['ignore', 'pipe', 'pipe'], serviceName: 'Service backend' });
    let pid: number | undefined;
    let exit: ExitInfo | null = null;
    child.once('spawn', () => (pid = child.pid));
    const exited = new Promise<ExitInfo>((resolve) => {
      // A utility process reports only a code (on POSIX a signal's number when it was killed).
      child.once('exit', (code) => {
        exit = { code, signal: null };
        resolve(exit);
      });
    });
    child.on('error', (type, location) => {
      // `exit` follows every error; this only says why.
      process.emitWarning(`backend utility process ${type} at ${location}`);
    });
    if (!child.stdout || !child.stderr) throw new Error('utilityProcess.fork did not pipe stdout/stderr');
    return {
      get pid() {
        return pid ?? child.pid;
      },
      stdout: child.stdout,
      stderr: child.stderr,
      get exit() {
        return exit;
      },
      exited,
      // kill() is SIGTERM on POSIX (the backend shuts down cleanly) and TerminateProcess on Windows.
      terminate: () => void child.kill(),
      kill() {
        const target = pid ?? child.pid;
        if (exit || target === undefined) return;
        if (process.platform === 'win32') {
          spawn('taskkill', ['/pid', String(target), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => child.kill());
        } else {
          try {
            process.kill(target, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      },
    };
  };
}
