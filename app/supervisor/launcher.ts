/**
 * How the supervisor starts the backend, independent of the mechanism: a Node child process
 * (headless use and the tests) or an Electron utility process (the desktop app, where the
 * RunAsNode fuse is off). The supervisor only sees this interface.
 */
export interface ExitInfo {
  /** null when the process was killed by a signal (child_process) or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not be started at all (e.g. ENOENT), when that is what happened. */
  error?: string;
}

export interface BackendProcess {
  /** undefined until the process has started. */
  readonly pid: number | undefined;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  /** null while it runs. */
  readonly exit: ExitInfo | null;
  /** Resolves once when the process has exited or failed to start. */
  readonly exited: Promise<ExitInfo>;
  /** Asks it to stop (SIGTERM; on Windows the mechanism's own polite stop). */
  terminate(): void;
  /** Ends it and what it started, now. */
  kill(): void;
}

export interface LaunchRequest {
  entry: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export type Launcher = (request: LaunchRequest) => BackendProcess;

export function describeExit(exit: ExitInfo): string {
  if (exit.error) return `could not be started (${exit.error})`;
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** Resolves once it has exited; asks politely first and kills it after `killTimeoutMs`. */
export async function stopProcess(proc: BackendProcess, killTimeoutMs: number): Promise<void> {
  if (proc.exit) return;
  proc.terminate();
  const timer = setTimeout(() => proc.kill(), killTimeoutMs);
  await proc.exited;
  clearTimeout(timer);
}
