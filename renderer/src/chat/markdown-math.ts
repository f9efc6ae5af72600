import type { TokenizerExtension, Tokens } from 'marked';

/** A `$…$` or `$$…$$` formula from the Markdown lexer. */
export interface MathToken extends Tokens.Generic {
  type: 'math';
  raw: string;
  text: string;
  display: boolean;
}

// `$$` blocks on their own lines, `$$…$$` inline as display math, `$…$` inline. A single `$` needs a
// non-space right after it and right before the closing one, which must not be followed by a digit:
// "costs $5 and $6" stays text.
const INLINE_DISPLAY = /^\$\$(?!\$)((?:\\[\s\S]|[^\\$])+?)\$\$/;
const INLINE = /^\$(?![\s$])((?:\\[\s\S]|[^\\$\n])*?[^\s\\])\$(?!\d)|^\$([^\s$\\])\$(?!\d)/;

/**
 * A `$$` block at the start of `src`: up to the first `$$` followed only by blanks to the end of
 * its line. One pass over the text (a pattern with a lazy body before `[ \t]*\$\$` was
 * quadratic in a run of blanks: seconds for 40,000 spaces).
 */
function blockAt(src: string): { raw: string; text: string } | undefined {
  if (!src.startsWith('$$')) return undefined;
  for (let at = src.indexOf('$$', 2); at !== -1; at = src.indexOf('$$', at + 1)) {
    let end = at + 2;
    while (src[end] === ' ' || src[end] === '\t') end++;
    if (end < src.length && src[end] !== '\n') continue;
    const text = src.slice(2, at).trim();
    if (!text) continue;
    while (src[end] === '\n') end++;
    return { raw: src.slice(0, end), text };
  }
  return undefined;
}

/**
 * Where a `$$` line starts inside the paragraph at the start of `src`, if one does. marked asks
 * this once per paragraph; looking past the paragraph's end (a blank line) made a reply of many
 * paragraphs quadratic, and a `$$` line further on starts a block of its own anyway.
 */
function blockStart(src: string): number | undefined {
  for (let line = 0; line < src.length;) {
    if (src.startsWith('$$', line)) return line;
    const nl = src.indexOf('\n', line);
    if (nl === -1) return undefined;
    line = nl + 1;
    let i = line;
    while (src[i] === ' ' || src[i] === '\t') i++;
    if (i >= src.length || src[i] === '\n') return undefined;
  }
  return undefined;
}

export const blockMath: TokenizerExtension = {
  name: 'math',
  level: 'block',
  start: blockStart,
  tokenizer(src) {
    const m = blockAt(src);
    if (!m) return undefined;
    return { type: 'math', raw: m.raw, text: m.text, display: true } satisfies MathToken;
  },
};

/**
 * Where the next `$` is, remembered per paragraph. marked asks `start` for the rest of the
 * paragraph after every text token; `indexOf` from there each time made a paragraph of many short
 * tokens quadratic (1 MB of "a* " held the event loop for seconds). marked always calls the
 * tokenizer first with the rest of the paragraph (a suffix of it) and that paragraph's token list,
 * then `start` with the rest minus its first character, so the position in the paragraph is known
 * and the next `$` is searched again only once it is passed.
 */
interface Scan {
  length: number;
  rest: string;
  next: number;
}
const scans = new WeakMap<object, Scan>();
let current: Scan | null = null;

function nextDollar(src: string): number | undefined {
  const scan = current;
  // Not the rest of the paragraph just seen (marked called it otherwise): a plain search.
  if (!scan || src.length !== scan.rest.length - 1 || src[0] !== scan.rest[1]) {
    const i = src.indexOf('$');
    return i === -1 ? undefined : i;
  }
  const at = scan.length - src.length;
  if (scan.next < at) {
    const i = src.indexOf('$');
    scan.next = i === -1 ? Infinity : at + i;
  }
  return scan.next === Infinity ? undefined : scan.next - at;
}

export const inlineMath: TokenizerExtension = {
  name: 'math',
  level: 'inline',
  start: nextDollar,
  tokenizer(src, tokens) {
    let scan = scans.get(tokens);
    if (!scan) scans.set(tokens, (scan = { length: src.length, rest: src, next: -1 }));
    scan.rest = src;
    current = scan;
    if (src[0] !== '$') return undefined;
    const d = INLINE_DISPLAY.exec(src);
    if (d) return { type: 'math', raw: d[0], text: d[1].trim(), display: true } satisfies MathToken;
    const m = INLINE.exec(src);
    if (!m) return undefined;
    return { type: 'math', raw: m[0], text: (m[1] ?? m[2]).trim(), display: false } satisfies MathToken;
  },
};
