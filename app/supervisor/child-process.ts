import { spawn, type ChildProcess } from 'node:child_process';
import type { BackendProcess, ExitInfo, Launcher } from './launcher.js';

/**
 * The backend's environment. ELECTRON_RUN_AS_NODE is set only for the backend itself; the app's
 * bundled backend entry deletes it from its own `process.env` before anything else runs, so tool
 * servers the backend spawns later never inherit it (an Electron-based tool would start as Node).
 */
export function backendEnv(base: NodeJS.ProcessEnv, runAsNode: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  delete env.ELECTRON_RUN_AS_NODE;
  if (runAsNode) env.ELECTRON_RUN_AS_NODE = '1';
  return env;
}

function killTree(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  if (process.platform === 'win32') {
    // Windows has no signals or process groups: taskkill /T takes the children with it.
    spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => child.kill());
  } else {
    child.kill('SIGKILL');
  }
}

/** A ChildProcess seen through the launcher interface. */
export function wrapChildProcess(child: ChildProcess): BackendProcess {
  let exit: ExitInfo | null = null;
  const exited = new Promise<ExitInfo>((resolve) => {
    const done = (info: ExitInfo) => {
      if (exit) return;
      exit = info;
      resolve(info);
    };
    child.once('exit', (code, signal) => done({ code, signal }));
    // A child that failed to spawn (no pid) never emits `exit`.
    child.on('error', (err) => {
      if (child.pid === undefined) done({ code: null, signal: null, error: err.message });
    });
  });
  return {
    get pid() {
      return child.pid;
    },
    stdout: child.stdout!,
    stderr: child.stderr!,
    get exit() {
      return exit;
    },
    exited,
    terminate() {
      // On Windows, closing the IPC channel is the polite stop: the backend treats it as "parent exited".
      if (process.platform === 'win32') {
        if (child.connected) child.disconnect();
      } else {
        child.kill('SIGTERM');
      }
    },
    kill: () => killTree(child),
  };
}

/**
 * Starts the backend as a Node child process (`execPath` is Node, or Electron's binary with
 * `runAsNode`), with piped output and an IPC channel: the backend exits when that channel
 * disconnects, which happens however the parent dies (even SIGKILL), so no orphan is left.
 */
export function childProcessLauncher(options: { execPath?: string; runAsNode?: boolean } = {}): Launcher {
  return ({ entry, args, env }) =>
    wrapChildProcess(
      spawn(options.execPath ?? process.execPath, [entry, ...args], {
        env: backendEnv(env, options.runAsNode ?? false),
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        windowsHide: true,
      }),
    );
}
