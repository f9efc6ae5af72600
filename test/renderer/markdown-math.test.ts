import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Marked, type Token } from 'marked';
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
 * CPU time this process spends lexing `src` with the math extensions: what the work costs, which a
 * busy machine does not inflate the way it inflates wall time (the lexer is synchronous).
 */
function lexCpuMs(src: string): { tokens: Token[]; cpuMs: number } {
  const before = process.cpuUsage();
  const tokens = marked.lexer(src);
  const used = process.cpuUsage(before);
  return { tokens, cpuMs: (used.user + used.system) / 1000 };
}

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

  it('hostile replies cost work proportional to their size: eight times the reply, about eight times the work', () => {
    // Each builds a reply `k` times the base size (the base is 40-130 KB, so eight times is up to 1 MB).
    const hostile: [string, (k: number) => string][] = [
      ['blanks after an unclosed $$', (k) => `$$${' '.repeat(40_000 * k)}x`],
      ['blank lines inside an unclosed $$', (k) => `$$\n${' '.repeat(20_000 * k)}\n${' '.repeat(20_000 * k)}x`],
      ['$$ pairs over blanks', (k) => `$$ a ${' '.repeat(2_000)}$$ b\n`.repeat(20 * k)],
      ['one-line $$ blocks with no blank line between', (k) => '$$ x_1 $$\n'.repeat(8_000 * k)],
      ['text, then $$ and blanks', (k) => `text $$${' '.repeat(40_000 * k)}`],
      ['paragraphs of formulas', (k) => 'paragraph $x$ and $$y$$ here.\n\n'.repeat(4_000 * k)],
      // One paragraph of short tokens: marked asks where the next "$" is after every text token, and
      // searching the rest of the paragraph each time held the event loop 5-10 s at 1 MB.
      ['one paragraph of short tokens', (k) => 'a* '.repeat(44_000 * k)],
      ['comparisons, then one $', (k) => `${'a < b '.repeat(21_000 * k)}$`],
      ['escaped dots', (k) => 'x\\. '.repeat(31_000 * k)],
    ];
    for (const [name, reply] of hostile) {
      lexCpuMs(reply(1)); // warms the code up
      const small = lexCpuMs(reply(1));
      const big = lexCpuMs(reply(8));
      assert.ok(small.tokens.length > 0 && big.tokens.length > 0);
      // Linear work is about 8x; the quadratic patterns cost 60x and more. Generous for GC and JIT noise.
      const ratio = big.cpuMs / Math.max(small.cpuMs, 2);
      assert.ok(
        ratio < 24,
        `${name}: 8x the reply cost ${ratio.toFixed(1)}x (${small.cpuMs.toFixed(0)} ms, then ${big.cpuMs.toFixed(0)} ms)`,
      );
    }
  });
});
