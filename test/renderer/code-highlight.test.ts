import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

// The renderer's own module, compiled here beside this test (so that lowlight, highlight.js and
// React resolve from the repository's node_modules), as the math test does.
const SOURCE = fileURLToPath(new URL('../../../renderer/src/chat/code-highlight.ts', import.meta.url));
const compiled = fileURLToPath(new URL(`./code-highlight-${process.pid}.mjs`, import.meta.url));
writeFileSync(
  compiled,
  ts.transpileModule(readFileSync(SOURCE, 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
    .outputText,
);
const hl = (await import(pathToFileURL(compiled).href)) as typeof import('../../renderer/src/chat/code-highlight.js');

describe('code highlighting is bounded', () => {
  after(() => rmSync(compiled, { force: true }));

  it('highlights ordinary code; a 1 MB block that costs highlight.js the most stays plain text, at once', async () => {
    assert.equal(await hl.loadGrammar('js'), true);
    const small = hl.highlightTree('js', 'const x = "a"; // note');
    const classes = JSON.stringify(small);
    assert.match(classes, /hljs-keyword/);
    assert.match(classes, /hljs-comment/);
    // "(((…" is the worst input found for the JavaScript grammar: over a second for 80,000 characters.
    for (const code of ['('.repeat(1_000_000), '*'.repeat(1_000_000), `${'x = 1;\n'.repeat(2500)}`]) {
      const t0 = performance.now();
      const tree = hl.highlightTree('javascript', code);
      const ms = performance.now() - t0;
      if (code.length > hl.MAX_HIGHLIGHTED) assert.equal(tree, null, 'above the bound: plain text');
      else assert.ok(tree && tree.children.length > 0, 'an ordinary block under the bound is highlighted');
      assert.ok(ms < 1000, `${code.slice(0, 8)}… (${code.length} chars): ${ms.toFixed(0)} ms`);
    }
  });
});
