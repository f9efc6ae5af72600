import { promises as fs } from 'node:fs';

const CHUNK = 1024 * 1024;
/** What a line's head keeps: enough for the record type, the id and the role. */
export const HEAD_BYTES = 256;

export interface LogLine {
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Bytes of the line, without its newline. */
  length: number;
  /** The first HEAD_BYTES bytes. */
  head: Buffer;
  /** The last byte before the newline (ignoring a CR), -1 for an empty line. */
  lastByte: number;
  /** The whole line when it is at most `fullUpTo` bytes, else null. */
  full: Buffer | null;
  /** Whether the line holds the `needle` bytes anywhere (false when none was given). */
  found: boolean;
}

/**
 * Calls `onLine` for every complete line (ended by "\n") in [from, to) of a file, streaming in
 * 1 MiB chunks: no line, however long, and no file, however large, becomes one string. Resolves with
 * the offset after the last complete line (where a torn tail begins).
 */
export async function forEachLine(
  file: string,
  from: number,
  to: number,
  onLine: (line: LogLine) => void | Promise<void>,
  fullUpTo = 0,
  /** Bytes to look for in every line without keeping it (the index asks for `"parent_id"`). */
  needle?: Buffer,
): Promise<number> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.max(1, Math.min(CHUNK, to - from)));
    let lineStart = from;
    let head: Buffer[] = [];
    let headBytes = 0;
    let parts: Buffer[] | null = fullUpTo > 0 ? [] : null;
    let lineBytes = 0;
    let lastByte = -1;
    let lastButOne = -1;
    let found = false;
    /** The end of the line's previous piece, for a needle split across two chunks. */
    let carry: Buffer | null = null;
    let pos = from;
    while (pos < to) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, to - pos), pos);
      if (bytesRead === 0) break;
      let at = 0;
      while (at < bytesRead) {
        const nl = buffer.indexOf(0x0a, at);
        const end = nl < 0 || nl >= bytesRead ? bytesRead : nl;
        const piece = buffer.subarray(at, end);
        if (piece.length > 0) {
          if (headBytes < HEAD_BYTES) {
            const take = piece.subarray(0, HEAD_BYTES - headBytes);
            head.push(Buffer.from(take));
            headBytes += take.length;
          }
          if (parts && lineBytes + piece.length <= fullUpTo) parts.push(Buffer.from(piece));
          else parts = null;
          if (needle && !found) {
            found =
              piece.indexOf(needle) >= 0 ||
              (carry !== null && Buffer.concat([carry, piece.subarray(0, needle.length - 1)]).indexOf(needle) >= 0);
            carry = null;
          }
          lineBytes += piece.length;
          lastButOne = piece.length > 1 ? piece[piece.length - 2] : lastByte;
          lastByte = piece[piece.length - 1];
        }
        if (end === bytesRead) {
          // The line goes on in the next chunk.
          if (needle && !found) carry = Buffer.from(piece.subarray(Math.max(0, piece.length - needle.length + 1)));
          break;
        }
        // A complete line.
        const last = lastByte === 0x0d ? lastButOne : lastByte;
        await onLine({
          offset: lineStart,
          length: lineBytes,
          head: Buffer.concat(head, headBytes),
          lastByte: last,
          full: parts ? Buffer.concat(parts, lineBytes) : null,
          found,
        });
        lineStart = pos + end + 1;
        head = [];
        headBytes = 0;
        parts = fullUpTo > 0 ? [] : null;
        lineBytes = 0;
        lastByte = -1;
        lastButOne = -1;
        found = false;
        carry = null;
        at = end + 1;
      }
      pos += bytesRead;
    }
    return lineStart;
  } finally {
    await handle.close();
  }
}

/** Reads [from, to) of a file (a page's records). */
export async function readRange(file: string, from: number, to: number): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.max(0, to - from));
    let done = 0;
    while (done < buffer.length) {
      const { bytesRead } = await handle.read(buffer, done, buffer.length - done, from + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return buffer.subarray(0, done);
  } finally {
    await handle.close();
  }
}
