import assert from 'node:assert/strict';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { Marked, type Token, type TokenizerExtension } from 'marked';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

// The renderer's own source, compiled here: tsc's copy under dist/renderer/src/ is wiped when
// `npm run build` builds the renderer into dist/renderer after it (the module imports only types).
const SOURCE = fileURLToPath(new URL('../../../renderer/src/chat/markdown-math.ts', import.meta.url));
const compiled = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-math-')), 'markdown-math.mjs');
writeFileSync(
  compiled,
  ts.transpileModule(readFileSync(SOURCE, 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
    .outputText,
);
const { blockMath, inlineMath } = (await import(pathToFileURL(compiled).href)) as typeof import('../../renderer/src/chat/markdown-math.js');

const marked = new Marked({ gfm: true, breaks: false, extensions: [blockMath, inlineMath] });

function mathTokens(tokens: Token[]): { text: string; display: boolean }[] {
  const out: { text: string; display: boolean }[] = [];
  void marked.walkTokens(tokens, (t) => {
    if (t.type === 'math')
      out.push({ text: (t as unknown as { text: string }).text, display: (t as unknown as { display: boolean }).display });
  });
  return out;
}

/**
 * Lexes `src` with the event-loop delay measured: the longest single hold in ms (the lexer is
 * synchronous, so its own duration is the hold too: the larger of the two is kept; under node:test
 * the histogram alone missed a 10 s hold). `inMathMs` is the part spent in the math extensions
 * (their `start` and tokenizers): marked's own work on a 1 MB reply is linear but itself takes
 * about a second on a loaded machine, so the bound is put on what this module adds.
 */
async function lexTimed(src: string): Promise<{ tokens: Token[]; heldMs: number; inMathMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  await new Promise((r) => setImmediate(r));
  inMathMs = 0;
  const t0 = performance.now();
  const tokens = timedMarked.lexer(src);
  const wall = performance.now() - t0;
  // A timer must fire after the work for the histogram to record how late it was.
  await new Promise((r) => setTimeout(r, 30));
  delay.disable();
  return { tokens, heldMs: Math.max(wall, delay.max / 1e6), inMathMs };
}

let inMathMs = 0;
function timed<T, A extends unknown[], R>(fn: (this: T, ...args: A) => R): (this: T, ...args: A) => R {
  return function (this: T, ...args: A): R {
    const t0 = performance.now();
    try {
      return fn.apply(this, args);
    } finally {
      inMathMs += performance.now() - t0;
    }
  };
}
const timedMarked = new Marked({
  gfm: true,
  breaks: false,
  extensions: [blockMath, inlineMath].map((x) => ({ ...x, start: timed(x.start!), tokenizer: timed(x.tokenizer) }) as TokenizerExtension),
});

describe("the renderer's math in Markdown is linear in the reply", () => {
  it('keeps its meaning: $$ blocks, inline display, inline, prices', () => {
    const math = mathTokens(marked.lexer('$$\n\\frac{a}{b}\n$$\n\nInline $x^2$ and $$y$$, a price of $5 and $6.\n\nText\n$$\nz\n$$\n'));
    assert.deepEqual(math, [
      { text: '\\frac{a}{b}', display: true },
      { text: 'x^2', display: false },
      { text: 'y', display: true },
      { text: 'z', display: true },
    ]);
  });

  it('finds every formula in a paragraph of many short tokens, and in the paragraphs after it', () => {
    const src = `${'a* b_ '.repeat(50)}$x_1$ ${'c* '.repeat(50)}$$y$$ and \\$ a $z$ ${'*e* '.repeat(20)}$w$\n\nnext $v$ ${'f_ '.repeat(9)}\n`;
    assert.deepEqual(
      mathTokens(marked.lexer(src)).map((m) => m.text),
      ['x_1', 'y', 'z', 'w', 'v'],
    );
  });

  it('hostile replies (40,000 blanks after an unclosed $$, 1 MB replies) spend little time in the math extensions', async () => {
    const blanks = ' '.repeat(40_000);
    const hostile = [
      `$$${blanks}x`,
      `$$\n${blanks}\n${blanks}x`,
      `$$ a ${blanks}$$ b\n`.repeat(20),
      `text $$${blanks}`,
      `${'paragraph $x$ and $$y$$ here.\n\n'.repeat(30_000)}`,
      // One 1 MB paragraph of short tokens: marked asks where the next "$" is after every text
      // token, and searching the rest of the paragraph each time held the event loop 5-10 s.
      'a* '.repeat(350_000),
      `${'a < b '.repeat(170_000)}$`,
      'x\\. '.repeat(250_000),
    ];
    for (const src of hostile) {
      const { tokens, inMathMs, heldMs } = await lexTimed(src);
      assert.ok(tokens.length > 0);
      // Quadratic patterns took seconds; the bound is generous for a loaded machine.
      assert.ok(
        inMathMs < 1000,
        `${src.slice(0, 12).trim()}…: ${inMathMs.toFixed(0)} ms of ${heldMs.toFixed(0)} ms in the math extensions`,
      );
    }
  });
});
