import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { guardedCommand, signalGroup } from './orphan-guard.js';

// Loaded only through the lazy MCP import (it pulls SDK code in).

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
 * process group, with the full environment (minus ELECTRON_RUN_AS_NODE), and keeping the exit status
 * and the last stderr lines so a failure can be explained in words.
 */
export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private group = false;
  private readonly buffer = new ReadBuffer();
  private readonly stderrTail: string[] = [];
  private partialErr = '';
  exit?: StdioExit;

  constructor(
    private readonly params: { command: string; args: string[]; env: NodeJS.ProcessEnv; cwd?: string },
    private readonly onStderr?: (line: string) => void,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  stderrLines(): string[] {
    return this.partialErr ? [...this.stderrTail, this.partialErr] : [...this.stderrTail];
  }

  start(): Promise<void> {
    const guarded = guardedCommand(this.params.command, this.params.args);
    this.group = guarded.group;
    return new Promise((resolve, reject) => {
      const child = spawn(guarded.command, guarded.args, {
        env: this.params.env,
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: guarded.group,
        windowsHide: true,
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
      child.stdout!.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => this.collectStderr(chunk));
    });
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
      if (stdin.write(serializeMessage(message))) resolve();
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
    this.buffer.clear();
  }

  /** Synchronous last resort at process exit: signal the group, do not wait. */
  killNow(): void {
    if (this.child) signalGroup(this.child.pid, this.group, 'SIGTERM');
  }
}
