import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    for (const code of ['('.repeat(1_000_000), '*'.repeat(1_000_000)])
      assert.equal(hl.highlightTree('javascript', code), null, 'above the bound: plain text');
    assert.ok(hl.highlightTree('javascript', 'x = 1;\n'.repeat(2500))?.children.length, 'an ordinary block under the bound is highlighted');
    // The worst input just under the bound costs little work (CPU time: a busy machine does not inflate it).
    const before = process.cpuUsage();
    assert.ok(hl.highlightTree('javascript', '('.repeat(hl.MAX_HIGHLIGHTED)));
    const used = process.cpuUsage(before);
    const cpuMs = (used.user + used.system) / 1000;
    assert.ok(cpuMs < 1000, `${hl.MAX_HIGHLIGHTED} characters of "(" cost ${cpuMs.toFixed(0)} ms of CPU`);
  });
});
