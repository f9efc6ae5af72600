/** The spec's "2000 most recent lines" retained by the desktop capture. */
export const LOG_CAPACITY = 2000;

/** `supervisor` lines are the app's own notes about the backend (restarts, failures). */
export type LogStreamName = 'stdout' | 'stderr' | 'supervisor';

export interface LogLine {
  /** 1-based sequence number, increasing for the whole app session (also across restarts). */
  seq: number;
  /** Milliseconds since the epoch. */
  time: number;
  stream: LogStreamName;
  line: string;
}

/** A fixed-size ring of the most recent lines: O(1) append, oldest overwritten first. */
export class LogRing {
  private readonly slots: (LogLine | undefined)[];
  private written = 0;

  constructor(readonly capacity = LOG_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.slots = new Array(capacity);
  }

  append(stream: LogStreamName, line: string, time = Date.now()): LogLine {
    const entry: LogLine = { seq: this.written + 1, time, stream, line };
    this.slots[this.written % this.capacity] = entry;
    this.written += 1;
    return entry;
  }

  get size(): number {
    return Math.min(this.written, this.capacity);
  }

  /** Sequence number of the newest line (0 when empty). */
  get lastSeq(): number {
    return this.written;
  }

  /** Lines with seq > since, oldest first. */
  since(since = 0): LogLine[] {
    const first = Math.max(since, this.written - this.capacity, 0);
    const out: LogLine[] = new Array(Math.max(this.written - first, 0));
    for (let seq = first; seq < this.written; seq++) out[seq - first] = this.slots[seq % this.capacity]!;
    return out;
  }

  /** The newest `count` lines, oldest first. */
  tail(count: number): LogLine[] {
    return this.since(Math.max(this.written - count, 0));
  }
}
