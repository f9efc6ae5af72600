import type { ChunkLocation } from './knowledge-api.js';

// Cutting text into chunks of about `tokens` tokens with `overlap` tokens repeated (DESIGN 13:
// 512/64). Tokens are estimated per character (a quarter for ASCII, one for CJK, half otherwise),
// close enough for BPE vocabularies and never a tokenizer download. Every character is visited a
// bounded number of times: linear in the input.

/** A run of text with one location (a PDF page, a Markdown section); `firstLine` asks for line ranges. */
export interface Segment {
  text: string;
  location: ChunkLocation;
  /** 1-based line of the segment's first character: chunks then carry line_start/line_end. */
  firstLine?: number;
}

export interface ChunkDraft {
  text: string;
  location: ChunkLocation;
}

export interface ChunkingOptions {
  tokens: number;
  overlap: number;
}

function cost(code: number): number {
  if (code < 0x80) return 0.25;
  if (code >= 0x2e80 && code <= 0xffef) return 1; // CJK, kana, hangul, full-width forms
  return 0.5;
}

/** Estimated tokens of a text (for budgets and the whole-text check). */
export function estimateTokens(text: string): number {
  let total = 0;
  for (let i = 0; i < text.length; i++) total += cost(text.charCodeAt(i));
  return Math.ceil(total);
}

const isSpace = (code: number) => code === 32 || code === 10 || code === 9 || code === 13;

/** A cut near `end`: the last newline, else the last space, in the last 40% of [start, end). */
function breakBefore(s: string, start: number, end: number): number {
  const lo = start + Math.floor((end - start) * 0.6);
  let space = -1;
  for (let i = end - 1; i > lo; i--) {
    const code = s.charCodeAt(i);
    if (code === 10) return i + 1;
    if (space < 0 && isSpace(code)) space = i + 1;
  }
  return space > 0 ? space : end;
}

function countLines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

/** Chunks of one segment, appended to `out`. */
function chunkSegment(seg: Segment, opts: ChunkingOptions, out: ChunkDraft[]): void {
  const s = seg.text;
  const n = s.length;
  const budget = Math.max(16, opts.tokens);
  const overlap = Math.max(0, Math.min(opts.overlap, budget / 2));
  let start = 0;
  let line = seg.firstLine ?? 1;
  let lineAt = 0;
  while (start < n) {
    let end = start;
    let c = 0;
    while (end < n && c < budget) c += cost(s.charCodeAt(end++));
    if (end < n) end = breakBefore(s, start, end);
    const raw = s.slice(start, end);
    const text = raw.trim();
    if (text) {
      const location: ChunkLocation = { ...seg.location };
      if (seg.firstLine !== undefined) {
        line += countLines(s, lineAt, start);
        lineAt = start;
        const lead = raw.length - raw.trimStart().length;
        const first = line + countLines(s, start, start + lead);
        location.line_start = first;
        location.line_end = first + countLines(text, 0, text.length);
      }
      out.push({ text, location });
    }
    if (end >= n) break;
    // Step back by the overlap, then forward to a word start, never behind the last start.
    let next = end;
    let back = 0;
    while (next > start + 1 && back < overlap) back += cost(s.charCodeAt(--next));
    if (next > start + 1) {
      const limit = Math.min(end, next + 64);
      let k = next;
      while (k < limit && !isSpace(s.charCodeAt(k - 1))) k++;
      if (k < limit) next = k;
    }
    start = Math.max(next, start + 1);
  }
}

export function chunkSegments(segments: Iterable<Segment>, opts: ChunkingOptions): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  for (const seg of segments) chunkSegment(seg, opts, out);
  return out;
}
