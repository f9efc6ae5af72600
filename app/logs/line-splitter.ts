/** Longest line kept; the rest is dropped with a marker so one runaway line cannot eat the buffer. */
export const MAX_LINE_CHARS = 8192;

/**
 * Turns a stream of text chunks into lines: keeps a partial line across chunks, strips the `\r`
 * of CRLF endings and caps very long lines without holding more than the cap in memory.
 */
export class LineSplitter {
  private partial = '';
  private dropped = 0;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxChars = MAX_LINE_CHARS,
  ) {}

  push(chunk: string): void {
    let start = 0;
    let nl = chunk.indexOf('\n');
    while (nl !== -1) {
      // Drop the CR of CRLF before capping, so it never counts as a truncated character.
      const end = nl > start && chunk.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      this.take(chunk, start, end);
      this.emit();
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) this.take(chunk, start, chunk.length);
  }

  /** Emits what is left of an unterminated last line (the stream ended). */
  flush(): void {
    if (this.partial !== '' || this.dropped > 0) this.emit();
  }

  private take(chunk: string, from: number, to: number): void {
    const room = this.maxChars - this.partial.length;
    const length = to - from;
    if (length <= room) {
      this.partial = this.partial === '' ? chunk.slice(from, to) : this.partial + chunk.slice(from, to);
      return;
    }
    if (room > 0) this.partial += chunk.slice(from, from + room);
    this.dropped += length - Math.max(room, 0);
  }

  private emit(): void {
    let line = this.partial;
    this.partial = '';
    if (this.dropped > 0) {
      line += ` … [line truncated, ${this.dropped} more characters]`;
      this.dropped = 0;
    } else if (line.charCodeAt(line.length - 1) === 13) {
      // CRLF split across two chunks: the CR arrived with the previous one.
      line = line.slice(0, -1);
    }
    this.onLine(line);
  }
}
