import { createReadStream } from 'node:fs';

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x7b, 0x5b]);
const CLOSE = new Set([0x7d, 0x5d]);
const COMMA = 0x2c;

/** A file that is not the JSON array it should be; `path` is where (`[3]`, or empty for the top level). */
export class ArrayStreamError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The elements of a top-level JSON array in a file, parsed one at a time: a 100 MB ChatGPT export
 * never sits in memory whole, only the conversation being read. Structural characters are ASCII
 * and never occur inside a multi-byte UTF-8 sequence, so scanning bytes is safe.
 */
export async function* jsonArrayElements(file: string, chunkBytes = 1 << 20): AsyncGenerator<{ index: number; value: unknown }> {
  let state: 'start' | 'before' | 'in' | 'end' = 'start';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let parts: Buffer[] = [];
  let index = 0;
  const finish = (): { index: number; value: unknown } => {
    const text = Buffer.concat(parts).toString('utf8');
    parts = [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ArrayStreamError(`[${index}]`, `[${index}] is not valid JSON: ${(err as Error).message}`);
    }
    return { index: index++, value };
  };
  for await (const chunk of createReadStream(file, { highWaterMark: chunkBytes }) as AsyncIterable<Buffer>) {
    let from = -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (state === 'in') {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
          continue;
        }
        if (c === QUOTE) inString = true;
        else if (OPEN.has(c)) depth++;
        else if (CLOSE.has(c) && depth > 0) depth--;
        else if (depth === 0 && (c === COMMA || c === 0x5d)) {
          parts.push(chunk.subarray(Math.max(0, from), i));
          yield finish();
          state = c === COMMA ? 'before' : 'end';
        }
        continue;
      }
      if (WS.has(c)) continue;
      if (state === 'start') {
        if (c !== 0x5b) throw new ArrayStreamError('', 'The file must hold a JSON array of conversations.');
        state = 'before';
        continue;
      }
      if (state === 'before') {
        if (c === 0x5d && index === 0) {
          state = 'end';
          continue;
        }
        state = 'in';
        from = i;
        depth = 0;
        inString = false;
        escaped = false;
        i--; // the first character is scanned as part of the element
        continue;
      }
      throw new ArrayStreamError('', 'Unexpected data after the end of the array.');
    }
    if (state === 'in') parts.push(Buffer.from(chunk.subarray(Math.max(0, from))));
  }
  // (cast: the checker loses track of `state` across the yields above)
  if ((state as string) !== 'end')
    throw new ArrayStreamError((state as string) === 'start' ? '' : `[${index}]`, 'The file ends before the array does (truncated?).');
}
