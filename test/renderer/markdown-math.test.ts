import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
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

/** Lexes `src` with the event-loop delay measured: the longest single hold in ms. */
async function lexTimed(src: string): Promise<{ tokens: Token[]; heldMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  await new Promise((r) => setImmediate(r));
  const tokens = marked.lexer(src);
  // A timer must fire after the work for the histogram to record how late it was.
  await new Promise((r) => setTimeout(r, 30));
  delay.disable();
  return { tokens, heldMs: delay.max / 1e6 };
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

  it('hostile replies (40,000 blanks after an unclosed $$, a 1 MB reply) lex without holding the event loop', async () => {
    const blanks = ' '.repeat(40_000);
    const hostile = [
      `$$${blanks}x`,
      `$$\n${blanks}\n${blanks}x`,
      `$$ a ${blanks}$$ b\n`.repeat(20),
      `text $$${blanks}`,
      `${'paragraph $x$ and $$y$$ here.\n\n'.repeat(30_000)}`,
    ];
    for (const src of hostile) {
      const { tokens, heldMs } = await lexTimed(src);
      assert.ok(tokens.length > 0);
      // Quadratic patterns held it for seconds; the bound is generous for a loaded machine (figures in the bench).
      assert.ok(heldMs < 1500, `${src.slice(0, 20).trim()}…: held ${heldMs.toFixed(0)} ms`);
    }
  });
});
