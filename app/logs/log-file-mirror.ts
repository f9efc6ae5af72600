import { promises as fs } from 'node:fs';
import path from 'node:path';
import { LOG_CAPACITY, type LogLine } from './ring-buffer.js';

export interface LogFileMirrorOptions {
  /** Lines the file must keep (the most recent ones). */
  capacity?: number;
  /** Extra lines allowed before the file is compacted back to `capacity`. */
  slack?: number;
  /** How long new lines wait to be written together. */
  flushDelayMs?: number;
}

export function formatLogLine(entry: LogLine): string {
  return `${new Date(entry.time).toISOString()} ${entry.stream} ${entry.line}\n`;
}

/**
 * Mirrors log lines into a file that always holds at least the most recent `capacity` lines:
 * lines are appended in batches, and once the file holds `capacity + slack` lines it is rewritten
 * (atomically, temp file + rename) with just the newest `capacity`. One rewrite per `slack` lines
 * keeps the cost O(1) per line; `close()` trims the file to exactly `capacity` lines.
 * The previous session's file is kept next to it as `<name>.previous<ext>`.
 */
export class LogFileMirror {
  private readonly capacity: number;
  private readonly slack: number;
  private readonly flushDelayMs: number;
  /** The newest `capacity` lines, for compaction without reading the file back. */
  private readonly recent: (LogLine | undefined)[];
  private seen = 0;
  private pending: LogLine[] = [];
  /** Lines were dropped from `pending` in a burst; the next drain rewrites from `recent`. */
  private overflowed = false;
  private drainQueued = false;
  private linesInFile = 0;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void>;
  private closed = false;
  /** The last write error, for diagnostics; logging continues in memory when the disk fails. */
  lastError: Error | undefined;

  constructor(
    readonly file: string,
    options: LogFileMirrorOptions = {},
  ) {
    this.capacity = options.capacity ?? LOG_CAPACITY;
    this.slack = options.slack ?? Math.ceil(this.capacity / 4);
    this.flushDelayMs = options.flushDelayMs ?? 200;
    this.recent = new Array(this.capacity);
    this.chain = this.open().catch((err: Error) => {
      this.lastError = err;
    });
  }

  get previousFile(): string {
    const ext = path.extname(this.file);
    return `${this.file.slice(0, this.file.length - ext.length)}.previous${ext}`;
  }

  append(entry: LogLine): void {
    if (this.closed) return;
    this.recent[this.seen % this.capacity] = entry;
    this.seen += 1;
    if (this.overflowed) return;
    this.pending.push(entry);
    // A burst larger than the file itself: forget the batch, the next drain rewrites from `recent`.
    if (this.pending.length >= this.capacity + this.slack) {
      this.pending = [];
      this.overflowed = true;
      void this.flush();
      return;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushDelayMs);
      this.timer.unref();
    }
  }

  /** Writes everything appended so far; resolves once it is on disk. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // One queued drain at a time; it takes whatever is pending when it runs.
    if (!this.drainQueued && (this.pending.length > 0 || this.overflowed)) {
      this.drainQueued = true;
      this.enqueue(() => this.drain());
    }
    return this.chain;
  }

  /** Flushes, trims the file to exactly the newest `capacity` lines and stops mirroring. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    if (this.linesInFile > this.capacity) {
      this.enqueue(() => this.rewrite());
      await this.chain;
    }
  }

  private async drain(): Promise<void> {
    this.drainQueued = false;
    const batch = this.pending;
    this.pending = [];
    if (this.overflowed || this.linesInFile + batch.length >= this.capacity + this.slack) {
      this.overflowed = false;
      return this.rewrite();
    }
    let text = '';
    for (const entry of batch) text += formatLogLine(entry);
    this.linesInFile += batch.length;
    await fs.appendFile(this.file, text);
  }

  /** Replaces the file (temp + rename) with the newest `capacity` lines; runs inside the chain. */
  private async rewrite(): Promise<void> {
    const count = Math.min(this.seen, this.capacity);
    let text = '';
    for (let seq = this.seen - count; seq < this.seen; seq++) text += formatLogLine(this.recent[seq % this.capacity]!);
    // Synchronous up to here: every pending line is in the snapshot; later appends start a new batch.
    this.pending = [];
    this.overflowed = false;
    this.linesInFile = count;
    const temp = path.join(path.dirname(this.file), `.tmp-${path.basename(this.file)}`);
    await fs.writeFile(temp, text, { mode: 0o600 });
    await fs.rename(temp, this.file);
  }

  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((err: Error) => {
      this.lastError = err;
    });
  }

  private async open(): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    await fs.rename(this.file, this.previousFile).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await fs.writeFile(this.file, '', { mode: 0o600 });
  }
}
