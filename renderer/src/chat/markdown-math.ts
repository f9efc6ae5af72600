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

export const inlineMath: TokenizerExtension = {
  name: 'math',
  level: 'inline',
  start: (src) => {
    const i = src.indexOf('$');
    return i === -1 ? undefined : i;
  },
  tokenizer(src) {
    const d = INLINE_DISPLAY.exec(src);
    if (d) return { type: 'math', raw: d[0], text: d[1].trim(), display: true } satisfies MathToken;
    const m = INLINE.exec(src);
    if (!m) return undefined;
    return { type: 'math', raw: m[0], text: (m[1] ?? m[2]).trim(), display: false } satisfies MathToken;
  },
};
