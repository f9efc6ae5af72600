import type { LogBuffer } from '../logs/log-buffer.js';
import { backoffDelay, DEFAULT_TIMING, type BackendState, type SupervisorTiming } from './backend-state.js';
import { childProcessLauncher } from './child-process.js';
import type { RunningBackend } from './running-backend.js';
import { describeExit, stopProcess, type BackendProcess, type Launcher } from './launcher.js';
import { choosePort } from './ports.js';
import { StartFailure, waitForReady } from './readiness.js';

export interface SupervisorOptions {
  /** The backend's entry file (the bundled backend in the app, dist/backend/main.js in tests). */
  entry: string;
  dataDir: string;
  log: LogBuffer;
  /** How to start it: a Node child process by default (headless use, tests), utilityProcess.fork in the app. */
  launch?: Launcher;
  /**
   * A backend already running for `dataDir` (its instance lock), checked before every start: the
   * supervisor then connects to it instead of starting a second one, and starts its own if it goes away.
   */
  findRunning?: () => Promise<RunningBackend | null>;
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
  private child: BackendProcess | undefined;
  private externalTimer: NodeJS.Timeout | undefined;
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
    if (child && !child.exit) {
      this.setState({ status: 'stopping' });
      this.note('stopping the backend');
      await stopProcess(child, this.timing.killTimeoutMs);
    }
    this.setState({ status: 'stopped' });
  }

  /** A user's restart: fresh failure count, also out of the `failed` state. */
  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }

  private async attempt(generation: number): Promise<void> {
    if (await this.useRunning(generation)) return;
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
    const launch = this.options.launch ?? childProcessLauncher();
    let child: BackendProcess;
    try {
      child = launch({
        entry: this.options.entry,
        args: ['-port', String(port), '-swap-port', String(swapPort), '-data', this.options.dataDir, ...(this.options.extraArgs ?? [])],
        env: this.options.env ?? process.env,
      });
    } catch (err) {
      return this.failed(`cannot start the backend: ${(err as Error).message}`, null, firstSeq);
    }
    this.child = child;
    this.options.log.follow('stdout', child.stdout);
    this.options.log.follow('stderr', child.stderr);
    void child.exited.then((exit) => {
      if (exit.error) this.note(`backend process error: ${exit.error}`);
      this.onExit(child, generation, describeExit(exit), exit.code);
    });
    try {
      const ready = await waitForReady(child, this.options.log, {
        timeoutMs: this.timing.readyTimeoutMs,
        pollMs: this.timing.healthPollMs,
        expectSwap: swapPort !== 'off',
      });
      if (generation !== this.generation) return;
      this.lastPort = ready.port;
      if (ready.swapUrl) this.lastSwapPort = Number(new URL(ready.swapUrl).port);
      this.setState({ status: 'ready', ...ready, pid: child.pid ?? 0, readyAt: Date.now(), external: false });
      this.healthyTimer = setTimeout(() => (this.failures = 0), this.timing.healthyResetMs);
    } catch (err) {
      if (generation !== this.generation) return;
      const failure = err instanceof StartFailure ? err : new StartFailure((err as Error).message, null);
      // A process that hangs instead of starting is stopped before the next attempt.
      await stopProcess(child, this.timing.killTimeoutMs);
      if (generation !== this.generation) return;
      this.failed(failure.message, failure.exitCode, firstSeq);
    }
  }

  private onExit(child: BackendProcess, generation: number, how: string, code: number | null): void {
    if (generation !== this.generation || this.child !== child || this.current.status !== 'ready') return;
    clearTimeout(this.healthyTimer);
    this.failed(`the backend ${how} while running`, code ?? -1, this.options.log.lastSeq - LAST_LINES);
  }

  /**
   * Connects to a backend that already runs for the data directory (started by hand or by another
   * copy of the app) instead of starting a second one; watches it and starts our own when it is gone.
   */
  private async useRunning(generation: number): Promise<boolean> {
    const running = await this.options.findRunning?.().catch(() => null);
    if (!running || generation !== this.generation) return false;
    const port = Number(new URL(running.url).port);
    this.note(`a backend is already running for ${this.options.dataDir} (pid ${running.pid}, ${running.url}); using it`);
    this.options.log.clearPairingCode();
    this.setState({
      status: 'ready',
      url: running.url,
      port,
      swapUrl: running.swapUrl,
      pid: running.pid,
      readyAt: Date.now(),
      external: true,
    });
    const watch = async () => {
      if (generation !== this.generation) return;
      if (await running.isAlive()) {
        this.externalTimer = setTimeout(() => void watch(), this.timing.externalPollMs);
        return;
      }
      if (generation !== this.generation) return;
      this.note(`the backend outside the app (pid ${running.pid}) is gone; starting our own`);
      void this.attempt(generation);
    };
    this.externalTimer = setTimeout(() => void watch(), this.timing.externalPollMs);
    return true;
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
    clearTimeout(this.externalTimer);
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
