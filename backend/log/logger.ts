import { redact } from './redact.js';

export type LogStream = 'stdout' | 'stderr';

export interface LogEntry {
  /** Monotonic sequence number, for `/api/logs?since=N`. */
  seq: number;
  time: string;
  stream: LogStream;
  line: string;
}

export interface LogSink {
  write(stream: LogStream, line: string): void;
}

const processSink: LogSink = {
  write(stream, line) {
    (stream === 'stderr' ? process.stderr : process.stdout).write(`${line}\n`);
  },
};

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * DESIGN 9: control characters in what is logged (a server name, a stderr line) are shown as
 * `\xNN`/`\uNNNN`, so they cannot rewrite the terminal or end a line early. A message's second and
 * later lines (stack traces) are indented, so no text inside a message can start a line that
 * readers of the log parse (`pairing code: …`, `paired with …`, `listening on …`).
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * The service's logger: plain text lines on stdout (errors and warnings on stderr), a ring buffer of the
 * most recent lines for `/api/logs`, and listeners for the WebSocket `log` topic.
 */
export class Logger {
  private readonly buffer: (LogEntry | undefined)[];
  private next = 0;
  private readonly listeners = new Set<(entry: LogEntry) => void>();

  constructor(
    private readonly sink: LogSink = processSink,
    readonly capacity = 2000,
  ) {
    this.buffer = new Array(capacity);
  }

  info(line: string): void {
    this.emit('stdout', line);
  }

  error(line: string): void {
    this.emit('stderr', line);
  }

  /** Warnings about problems go to stderr with the errors (README: "errors and warnings on stderr"). */
  warn(line: string): void {
    this.emit('stderr', line.startsWith('warning: ') ? line : `warning: ${line}`);
  }

  private emit(stream: LogStream, raw: string): void {
    const lines = redact(raw).split(/\r?\n/);
    for (const [i, text] of lines.entries()) {
      const line = i === 0 ? escapeControls(text) : `  ${escapeControls(text)}`;
      const entry: LogEntry = { seq: this.next + 1, time: new Date().toISOString(), stream, line };
      this.buffer[this.next % this.capacity] = entry;
      this.next += 1;
      this.sink.write(stream, line);
      for (const listener of this.listeners) listener(entry);
    }
  }

  /** Entries with seq > since, oldest first (at most the buffer's capacity). */
  since(since = 0): LogEntry[] {
    const first = Math.max(since, this.next - this.capacity, 0);
    const out: LogEntry[] = [];
    for (let i = first; i < this.next; i++) out.push(this.buffer[i % this.capacity] as LogEntry);
    return out;
  }

  get lastSeq(): number {
    return this.next;
  }

  subscribe(listener: (entry: LogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
