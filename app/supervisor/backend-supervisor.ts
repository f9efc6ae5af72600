import type { ChildProcess } from 'node:child_process';
import type { LogBuffer } from '../logs/log-buffer.js';
import { backoffDelay, DEFAULT_TIMING, type BackendState, type SupervisorTiming } from './backend-state.js';
import { exited, isRunning, spawnBackend, stopChild } from './child-process.js';
import { choosePort } from './ports.js';
import { StartFailure, waitForReady } from './readiness.js';

export interface SupervisorOptions {
  /** The backend's entry file (the bundled backend in the app, dist/backend/main.js in tests). */
  entry: string;
  dataDir: string;
  log: LogBuffer;
  /** Defaults to process.execPath: Node under tests, Electron's binary in the app. */
  execPath?: string;
  /** Set in the app: Electron's binary needs ELECTRON_RUN_AS_NODE=1 to behave as Node. */
  runAsNode?: boolean;
  /** Used when free, else any free port. */
  preferredPort?: number;
  preferredSwapPort?: number | 'off';
  extraArgs?: string[];
  env?: NodeJS.ProcessEnv;
  timing?: Partial<SupervisorTiming>;
}

/** How many of the failed process's last lines a `failed` state carries. */
const LAST_LINES = 20;

/**
 * Runs the backend as a child process and keeps it running: readiness check, restart with
 * exponential backoff after a crash, a `failed` state after repeated failures, clean stop.
 */
export class BackendSupervisor {
  private current: BackendState = { status: 'idle' };
  private readonly listeners = new Set<(state: BackendState) => void>();
  private readonly timing: SupervisorTiming;
  private child: ChildProcess | undefined;
  /** Bumped by start/stop so work of an abandoned attempt stops touching the state. */
  private generation = 0;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private healthyTimer: NodeJS.Timeout | undefined;
  /** Keep the same ports across restarts when possible, so the renderer's URL stays valid. */
  private lastPort: number | undefined;
  private lastSwapPort: number | undefined;

  constructor(private readonly options: SupervisorOptions) {
    this.timing = { ...DEFAULT_TIMING, ...options.timing };
  }

  get state(): BackendState {
    return this.current;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  onState(listener: (state: BackendState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first state (the current one included) that satisfies `predicate`. */
  waitFor(predicate: (state: BackendState) => boolean, timeoutMs = 30_000): Promise<BackendState> {
    if (predicate(this.current)) return Promise.resolve(this.current);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`backend state still ${JSON.stringify(this.current)} after ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.onState((state) => {
        if (!predicate(state)) return;
        clearTimeout(timer);
        off();
        resolve(state);
      });
    });
  }

  /** Starts the backend unless it is already running or starting. */
  start(): void {
    const { status } = this.current;
    if (status === 'starting' || status === 'ready' || status === 'waiting-to-restart' || status === 'stopping') return;
    this.failures = 0;
    void this.attempt(++this.generation);
  }

  /** Stops it (SIGTERM, killed after the timeout); resolves once the process is gone. */
  async stop(): Promise<void> {
    this.generation += 1;
    this.clearTimers();
    const child = this.child;
    this.child = undefined;
    if (child && isRunning(child)) {
      this.setState({ status: 'stopping' });
      this.note('stopping the backend');
      await stopChild(child, this.timing.killTimeoutMs);
    }
    this.setState({ status: 'stopped' });
  }

  /** A user's restart: fresh failure count, also out of the `failed` state. */
  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }

  private async attempt(generation: number): Promise<void> {
    const attempt = this.failures + 1;
    const { preferredPort = 8080, preferredSwapPort = 8081 } = this.options;
    const port = await choosePort([this.lastPort ?? preferredPort, preferredPort]);
    const swapPort = preferredSwapPort === 'off' ? 'off' : await choosePort([this.lastSwapPort ?? preferredSwapPort, preferredSwapPort]);
    if (generation !== this.generation) return;
    this.setState({ status: 'starting', attempt, port });
    this.note(`starting the backend (attempt ${attempt}) on ${port === 0 ? 'any free port' : `port ${port}`}`);
    // The old process's code is void; an unpaired backend logs a fresh one at start.
    this.options.log.clearPairingCode();
    const firstSeq = this.options.log.lastSeq;
    const child = spawnBackend({
      execPath: this.options.execPath ?? process.execPath,
      entry: this.options.entry,
      args: ['-port', String(port), '-swap-port', String(swapPort), '-data', this.options.dataDir, ...(this.options.extraArgs ?? [])],
      runAsNode: this.options.runAsNode ?? false,
      baseEnv: this.options.env,
    });
    this.child = child;
    this.options.log.follow('stdout', child.stdout!);
    this.options.log.follow('stderr', child.stderr!);
    child.on('error', (err) => this.note(`backend process error: ${err.message}`));
    child.once('exit', (code, signal) => this.onExit(child, generation, code, signal));
    try {
      const ready = await waitForReady(child, this.options.log, {
        timeoutMs: this.timing.readyTimeoutMs,
        pollMs: this.timing.healthPollMs,
        expectSwap: swapPort !== 'off',
      });
      if (generation !== this.generation) return;
      this.lastPort = ready.port;
      if (ready.swapUrl) this.lastSwapPort = Number(new URL(ready.swapUrl).port);
      this.setState({ status: 'ready', ...ready, pid: child.pid!, readyAt: Date.now() });
      this.healthyTimer = setTimeout(() => (this.failures = 0), this.timing.healthyResetMs);
    } catch (err) {
      if (generation !== this.generation) return;
      const failure = err instanceof StartFailure ? err : new StartFailure((err as Error).message, null);
      // A process that hangs instead of starting is stopped before the next attempt.
      await stopChild(child, this.timing.killTimeoutMs);
      await exited(child);
      if (generation !== this.generation) return;
      this.failed(failure.message, failure.exitCode, firstSeq);
    }
  }

  private onExit(child: ChildProcess, generation: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (generation !== this.generation || this.child !== child || this.current.status !== 'ready') return;
    clearTimeout(this.healthyTimer);
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    this.failed(`the backend ${how} while running`, code ?? -1, this.options.log.lastSeq - LAST_LINES);
  }

  private failed(reason: string, exitCode: number | null, firstSeq: number): void {
    this.failures += 1;
    this.note(reason);
    if (this.failures >= this.timing.maxFailures) {
      const lastLines = this.options.log
        .lines(Math.max(firstSeq, 0))
        .filter((l) => l.stream !== 'supervisor')
        .slice(-LAST_LINES)
        .map((l) => l.line);
      this.note(`giving up after ${this.failures} consecutive failures; use "Restart backend" to try again`);
      this.setState({ status: 'failed', reason, exitCode, lastLines, attempts: this.failures });
      return;
    }
    const delayMs = backoffDelay(this.failures, this.timing);
    this.note(`restarting in ${delayMs} ms`);
    this.setState({ status: 'waiting-to-restart', attempt: this.failures + 1, delayMs, reason });
    const generation = this.generation;
    this.retryTimer = setTimeout(() => void this.attempt(generation), delayMs);
  }

  private clearTimers(): void {
    clearTimeout(this.retryTimer);
    clearTimeout(this.healthyTimer);
  }

  private note(line: string): void {
    this.options.log.append('supervisor', line);
  }

  private setState(state: BackendState): void {
    this.current = state;
    for (const listener of this.listeners) listener(state);
  }
}
