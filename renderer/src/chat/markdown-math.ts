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
const BLOCK = /^\$\$[ \t]*\n?([\s\S]+?)\n?[ \t]*\$\$[ \t]*(?:\n+|$)/;
const INLINE_DISPLAY = /^\$\$(?!\$)((?:\\[\s\S]|[^\\$])+?)\$\$/;
const INLINE = /^\$(?![\s$])((?:\\[\s\S]|[^\\$\n])*?[^\s\\])\$(?!\d)|^\$([^\s$\\])\$(?!\d)/;

export const blockMath: TokenizerExtension = {
  name: 'math',
  level: 'block',
  start: (src) => src.match(/^\$\$/m)?.index,
  tokenizer(src) {
    const m = BLOCK.exec(src);
    if (!m) return undefined;
    return { type: 'math', raw: m[0], text: m[1].trim(), display: true } satisfies MathToken;
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
