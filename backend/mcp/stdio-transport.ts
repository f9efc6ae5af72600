import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { guardedCommand, signalGroup } from './orphan-guard.js';

// No SDK code at run time: the server is spawned while the SDK is still being imported.

const STDERR_LINES = 20;
const STOP_GRACE_MS = 2000;

export interface StdioExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Spawn failure (e.g. ENOENT on Windows, where there is no guard shell). */
  spawnError?: NodeJS.ErrnoException;
}

/**
 * MCP over stdio like the SDK's own transport, but spawned under the parent-death guard in its own
 * process group, with the environment it is given (child-env.ts), and keeping the exit status
 * and the last stderr lines so a failure can be explained in words.
 */
export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private group = false;
  private pending = '';
  private spawned?: Promise<void>;
  private readonly stderrTail: string[] = [];
  private partialErr = '';
  exit?: StdioExit;

  constructor(
    private readonly params: { command: string; args: string[]; env: NodeJS.ProcessEnv; cwd?: string; verbatim?: boolean },
    private readonly onStderr?: (line: string) => void,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  stderrLines(): string[] {
    return this.partialErr ? [...this.stderrTail, this.partialErr] : [...this.stderrTail];
  }

  /** Spawns the server; calling it again (the SDK client does on connect) returns the same promise. */
  start(): Promise<void> {
    this.spawned ??= this.spawn();
    return this.spawned;
  }

  private spawn(): Promise<void> {
    const guarded = guardedCommand(this.params.command, this.params.args);
    this.group = guarded.group;
    return new Promise((resolve, reject) => {
      const child = spawn(guarded.command, guarded.args, {
        env: this.params.env,
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: guarded.group,
        windowsHide: true,
        // A cmd.exe line already quoted by spawnLine (command-resolve.ts).
        windowsVerbatimArguments: this.params.verbatim,
      });
      this.child = child;
      child.once('spawn', () => resolve());
      child.once('error', (err: NodeJS.ErrnoException) => {
        this.exit ??= { code: null, signal: null, spawnError: err };
        reject(err);
        this.onerror?.(err);
      });
      child.once('exit', (code, signal) => {
        this.exit ??= { code, signal };
      });
      child.once('close', () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin!.on('error', (err) => this.onerror?.(err));
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => this.collectStdout(chunk));
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => this.collectStderr(chunk));
    });
  }

  /** JSON-RPC, one message a line; a line that is not JSON (a stray log line) is reported and skipped. */
  private collectStdout(chunk: string): void {
    const lines = (this.pending + chunk).split('\n');
    this.pending = lines.pop() ?? '';
    for (const raw of lines) {
      const line = raw.replace(/\r$/, '');
      if (!line.trim()) continue;
      let message: JSONRPCMessage;
      try {
        message = JSON.parse(line) as JSONRPCMessage;
      } catch {
        this.onerror?.(new Error(`not a JSON-RPC line on stdout: ${line.slice(0, 200)}`));
        continue;
      }
      this.onmessage?.(message);
    }
  }

  private collectStderr(chunk: string): void {
    const parts = (this.partialErr + chunk).split(/\r?\n/);
    this.partialErr = (parts.pop() ?? '').slice(-2000);
    for (const line of parts) {
      if (!line.trim()) continue;
      this.stderrTail.push(line.slice(0, 500));
      if (this.stderrTail.length > STDERR_LINES) this.stderrTail.shift();
      this.onStderr?.(line);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) return reject(new Error('Not connected'));
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Stops the server and everything it spawned: end stdin, then TERM the group, then KILL. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const within = (ms: number) =>
      Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    child.stdin?.end();
    signalGroup(child.pid, this.group, 'SIGTERM');
    if (!(await within(STOP_GRACE_MS))) {
      signalGroup(child.pid, this.group, 'SIGKILL');
      await within(STOP_GRACE_MS);
    }
    this.pending = '';
  }

  /** Synchronous last resort at process exit: signal the group, do not wait. */
  killNow(): void {
    if (this.child) signalGroup(this.child.pid, this.group, 'SIGTERM');
  }
}
