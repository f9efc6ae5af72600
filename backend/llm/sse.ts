/** One server-sent event: `event:` name (or 'message') and its `data:` lines joined by "\n". */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * A small incremental SSE decoder: blank-line separated events, several `data:` lines joined,
 * `:` comments skipped, partial lines carried across chunks, UTF-8 decoded as a stream (a
 * multi-byte character may straddle chunks).
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private event = '';
  private data: string[] = [];

  /** Feeds raw bytes; returns the events completed by them. */
  push(chunk: Uint8Array): SseEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    return this.drain();
  }

  /** Ends the stream: a last event without its blank line still counts. */
  end(): SseEvent[] {
    this.buffer += this.decoder.decode();
    const out = this.drain();
    if (this.buffer.length > 0) {
      this.line(this.buffer, out);
      this.buffer = '';
    }
    this.dispatch(out);
    return out;
  }

  private drain(): SseEvent[] {
    const out: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const nl = this.buffer.indexOf('\n', start);
      const cr = this.buffer.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr >= 0 && (nl < 0 || cr < nl)) {
        // "\r" at the very end may be the first half of "\r\n": wait for more.
        if (cr === this.buffer.length - 1) break;
        end = cr;
        next = this.buffer[cr + 1] === '\n' ? cr + 2 : cr + 1;
      } else if (nl >= 0) {
        end = nl;
        next = nl + 1;
      } else break;
      this.line(this.buffer.slice(start, end), out);
      start = next;
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') return this.dispatch(out);
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }

  private dispatch(out: SseEvent[]): void {
    if (this.data.length > 0) out.push({ event: this.event || 'message', data: this.data.join('\n') });
    this.data = [];
    this.event = '';
  }
}
