import { LineSplitter, MAX_LINE_CHARS } from './line-splitter.js';
import type { LogFileMirror } from './log-file-mirror.js';
import { PairingCodeTracker, type PairingCode } from './pairing-code.js';
import { LOG_CAPACITY, LogRing, type LogLine, type LogStreamName } from './ring-buffer.js';

export interface LogBufferOptions {
  capacity?: number;
  maxLineChars?: number;
  /** Optional file copy of the buffer (the app's log folder). */
  mirror?: LogFileMirror;
}

type Listener<T> = (value: T) => void;

/**
 * The desktop capture of the backend's output: stream-tagged lines in a 2000-line ring, mirrored
 * to a file, with the current pairing code read from the documented `pairing code:` lines.
 */
export class LogBuffer {
  private readonly ring: LogRing;
  private readonly pairing = new PairingCodeTracker();
  private readonly splitters: Record<'stdout' | 'stderr', LineSplitter>;
  private readonly lineListeners = new Set<Listener<LogLine>>();
  private readonly codeListeners = new Set<Listener<PairingCode | null>>();

  constructor(private readonly options: LogBufferOptions = {}) {
    this.ring = new LogRing(options.capacity ?? LOG_CAPACITY);
    const max = options.maxLineChars ?? MAX_LINE_CHARS;
    this.splitters = {
      stdout: new LineSplitter((line) => this.append('stdout', line), max),
      stderr: new LineSplitter((line) => this.append('stderr', line), max),
    };
  }

  get capacity(): number {
    return this.ring.capacity;
  }

  /** Feeds a chunk of raw output; complete lines are appended, a trailing partial line waits. */
  write(stream: 'stdout' | 'stderr', chunk: string): void {
    this.splitters[stream].push(chunk);
  }

  /** The stream ended: a last line without newline is still a line. */
  end(stream: 'stdout' | 'stderr'): void {
    this.splitters[stream].flush();
  }

  /** Reads a child's stdout/stderr until it ends. */
  follow(stream: 'stdout' | 'stderr', readable: NodeJS.ReadableStream): void {
    readable.setEncoding('utf8');
    readable.on('data', (chunk: string) => this.write(stream, chunk));
    readable.on('end', () => this.end(stream));
  }

  /** Appends one complete line; O(1) apart from the listeners. */
  append(stream: LogStreamName, line: string): LogLine {
    const entry = this.ring.append(stream, line);
    this.options.mirror?.append(entry);
    if (stream === 'stdout' && this.pairing.observe(line)) this.emitCode();
    for (const listener of this.lineListeners) listener(entry);
    return entry;
  }

  lines(since = 0): LogLine[] {
    return this.ring.since(since);
  }

  tail(count: number): LogLine[] {
    return this.ring.tail(count);
  }

  get lastSeq(): number {
    return this.ring.lastSeq;
  }

  get pairingCode(): PairingCode | null {
    return this.pairing.value;
  }

  /** A backend restart invalidates the code it logged; the new process logs its own. */
  clearPairingCode(): void {
    if (this.pairing.reset()) this.emitCode();
  }

  onLine(listener: Listener<LogLine>): () => void {
    this.lineListeners.add(listener);
    return () => this.lineListeners.delete(listener);
  }

  onPairingCode(listener: Listener<PairingCode | null>): () => void {
    this.codeListeners.add(listener);
    return () => this.codeListeners.delete(listener);
  }

  async close(): Promise<void> {
    await this.options.mirror?.close();
  }

  private emitCode(): void {
    const value = this.pairing.value;
    for (const listener of this.codeListeners) listener(value);
  }
}
