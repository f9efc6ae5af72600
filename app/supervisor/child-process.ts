import { spawn, type ChildProcess } from 'node:child_process';

export interface SpawnOptions {
  /** Node or Electron binary (`process.execPath`). */
  execPath: string;
  /** The backend's entry file. */
  entry: string;
  args: string[];
  /** Electron's binary runs as plain Node only with ELECTRON_RUN_AS_NODE=1. */
  runAsNode: boolean;
  baseEnv?: NodeJS.ProcessEnv;
}

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

/**
 * Spawns the backend with piped output and an IPC channel: the backend exits when that channel
 * disconnects, which happens however the parent dies (even SIGKILL), so no orphan is left.
 */
export function spawnBackend(options: SpawnOptions): ChildProcess {
  return spawn(options.execPath, [options.entry, ...options.args], {
    env: backendEnv(options.baseEnv ?? process.env, options.runAsNode),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    windowsHide: true,
  });
}

/** A child that failed to spawn (no pid) never emits `exit`; it counts as not running. */
export function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

/** Resolves when the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function killTree(child: ChildProcess): void {
  if (!isRunning(child) || child.pid === undefined) return;
  if (process.platform === 'win32') {
    // Windows has no signals or process groups: taskkill /T takes the children with it.
    spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => child.kill());
  } else {
    child.kill('SIGKILL');
  }
}

/**
 * Asks the backend to stop (SIGTERM; on Windows, closing the IPC channel, which the backend
 * treats as "parent exited"), and kills the tree when it is still there after `killTimeoutMs`.
 */
export async function stopChild(child: ChildProcess, killTimeoutMs: number): Promise<void> {
  if (!isRunning(child)) return;
  const done = exited(child);
  if (process.platform === 'win32') {
    if (child.connected) child.disconnect();
  } else {
    child.kill('SIGTERM');
  }
  const timer = setTimeout(() => killTree(child), killTimeoutMs);
  await done;
  clearTimeout(timer);
}
