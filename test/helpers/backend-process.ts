import { send, type Reply } from './raw-http.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built backend entry point (tests run from dist/test/...). */
export const BACKEND_ENTRY = fileURLToPath(new URL('../../backend/main.js', import.meta.url));

export function tempDir(prefix = 'svc-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface StartOptions {
  dataDir?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Wait for the assistant listener line (default true). */
  waitForListening?: boolean;
  timeoutMs?: number;
  /** Another built entry point (a test entry that calls createService with test options). */
  entry?: string;
}

const START_TIMEOUT_MS = 30_000;

/** A real backend process on free ports with a temporary data directory, its output captured. */
export class BackendProcess {
  readonly lines: { stream: 'stdout' | 'stderr'; line: string }[] = [];
  readonly child: ChildProcess;
  readonly dataDir: string;
  url = '';
  port = 0;
  swapUrl = '';
  exitCode: number | null = null;
  readonly exited: Promise<number | null>;
  private waiters: { re: RegExp; from: number; resolve: (m: RegExpExecArray) => void }[] = [];

  private constructor(dataDir: string, args: string[], env: NodeJS.ProcessEnv, entry = BACKEND_ENTRY) {
    this.dataDir = dataDir;
    this.child = spawn(process.execPath, [entry, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      let partial = '';
      this.child[stream]!.setEncoding('utf8');
      this.child[stream]!.on('data', (chunk: string) => {
        partial += chunk;
        const parts = partial.split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) this.push(stream, line);
      });
    }
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        resolve(this.exitCode);
      });
    });
  }

  static async start(options: StartOptions = {}): Promise<BackendProcess> {
    const dataDir = options.dataDir ?? path.join(tempDir(), 'data');
    const args = ['-port', '0', '-swap-port', '0', '-data', dataDir, ...(options.args ?? [])];
    const proc = new BackendProcess(dataDir, args, options.env ?? {}, options.entry);
    if (options.waitForListening === false) return proc;
    // A deadline for a hung start, not a speed check: a start on a machine loaded by a parallel
    // suite and a CPU burner can take several seconds.
    const timeoutMs = options.timeoutMs ?? START_TIMEOUT_MS;
    try {
      const m = await proc.waitForLine(/^listening on (https?:\/\/[^\s]+:(\d+))$/, timeoutMs);
      proc.url = m[1].replace('[::1]', 'localhost');
      proc.port = Number(m[2]);
      if (!args.some((a, i) => a === 'off' && /swap-port$/.test(args[i - 1] ?? '')) && !args.some((a) => /swap-port=off$/.test(a))) {
        proc.swapUrl = (await proc.waitForLine(/^swap builder listening on (http:\/\/127\.0\.0\.1:\d+)$/, timeoutMs))[1];
      }
    } catch (err) {
      // The caller never gets the process to stop: a backend left running would keep the test file open.
      await proc.kill();
      throw err;
    }
    return proc;
  }

  private push(stream: 'stdout' | 'stderr', line: string): void {
    this.lines.push({ stream, line });
    const index = this.lines.length - 1;
    this.waiters = this.waiters.filter((w) => {
      if (index < w.from) return true;
      const m = w.re.exec(line);
      if (m) w.resolve(m);
      return !m;
    });
  }

  /** Resolves with the first line (at or after `from`) matching `re`. */
  waitForLine(re: RegExp, timeoutMs = 20_000, from = 0): Promise<RegExpExecArray> {
    for (let i = from; i < this.lines.length; i++) {
      const m = re.exec(this.lines[i].line);
      if (m) return Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`timed out waiting for ${re}; output:\n${this.output()}`));
      }, timeoutMs);
      const waiter = {
        re,
        from,
        resolve: (m: RegExpExecArray) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.waiters.push(waiter);
      void this.exited.then(() => {
        if (this.waiters.includes(waiter)) {
          clearTimeout(timer);
          reject(new Error(`backend exited (${this.exitCode}) before ${re}; output:\n${this.output()}`));
        }
      });
    });
  }

  output(): string {
    return this.lines.map((l) => l.line).join('\n');
  }

  /** The newest pairing code in the log. */
  pairingCode(): string | undefined {
    for (let i = this.lines.length - 1; i >= 0; i--) {
      const m = /^pairing code: (\d{6}) \(expires ([^)]+)\)$/.exec(this.lines[i].line);
      if (m) return m[1];
    }
    return undefined;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.exitCode === null && this.child.exitCode === null) this.child.kill(signal);
    return this.exited;
  }

  async kill(): Promise<void> {
    await this.stop('SIGKILL');
  }

  cleanup(): void {
    rmSync(path.dirname(this.dataDir), { recursive: true, force: true });
  }
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A small fetch wrapper for tests: JSON in, JSON (or text) out. */
export async function api<T = any>(
  base: string,
  method: string,
  pathname: string,
  options: { body?: unknown; credential?: string; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.credential) headers.authorization = `Bearer ${options.credential}`;
  const res = await fetch(base + pathname, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // leave as text
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** Starts a backend and pairs with it; returns the process and credential. */
export async function startPaired(options: StartOptions = {}): Promise<{ proc: BackendProcess; credential: string }> {
  const proc = await BackendProcess.start(options);
  await proc.waitForLine(/^pairing code: \d{6}/);
  const res = await api(proc.url, 'POST', '/api/pairing/claim', { body: { pairing_code: proc.pairingCode() } });
  if (res.status !== 200) throw new Error(`pairing failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { proc, credential: res.body.credential as string };
}

/**
 * A raw node:http request, for headers fetch will not let a test set (Host, Origin) and
 * bodies it would not send as-is.
 */
export function rawRequest(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; host?: string },
): Promise<Reply> {
  return send(port, { method: options.method, path: options.path, headers: options.headers, body: options.body, connect: options.host });
}
