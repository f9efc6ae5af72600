import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkSegments, estimateTokens } from '../../backend/knowledge/chunker.js';
import { ftsMatch, ftsTerms } from '../../backend/knowledge/fts-query.js';
import { markdownSegments } from '../../backend/knowledge/parse-docs.js';
import { globRegex } from '../../backend/knowledge/folder-walk.js';

// Chunking by estimated tokens with overlap, in linear time, and the FTS5 quoting of user text.

describe('knowledge: chunking, headings, query quoting, globs', () => {
  it('cuts text into chunks of about the budget, overlapping, with line ranges that match the text', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1} ${'word '.repeat(8)}`);
    const chunks = chunkSegments([{ text: lines.join('\n'), location: {}, firstLine: 1 }], { tokens: 128, overlap: 16 });
    assert.ok(chunks.length > 10);
    for (const c of chunks) {
      assert.ok(estimateTokens(c.text) <= 130, `${estimateTokens(c.text)} tokens`);
      const first = Number(/^line (\d+)/.exec(c.text)?.[1] ?? NaN);
      if (!Number.isNaN(first)) assert.equal(c.location.line_start, first);
      const last = [...c.text.matchAll(/line (\d+)/g)].pop()?.[1];
      assert.equal(c.location.line_end, Number(last));
    }
    // Neighbours share text (the overlap), and the whole input is covered.
    for (let i = 1; i < chunks.length; i++) assert.ok((chunks[i].location.line_start ?? 0) <= (chunks[i - 1].location.line_end ?? 0));
    assert.equal(chunks[chunks.length - 1].location.line_end, 400);
  });

  it('a hostile input (one 20 MB line without spaces, CJK text) is cut in linear time', () => {
    const big = 'x'.repeat(20 * 1024 * 1024);
    const chunks = chunkSegments([{ text: big, location: {} }], { tokens: 512, overlap: 64 });
    assert.ok(chunks.length > 10_000);
    assert.ok(chunks.every((c) => c.text.length <= 512 * 4 + 4));
    const cjk = '知识库'.repeat(100_000);
    const c2 = chunkSegments([{ text: cjk, location: {} }], { tokens: 512, overlap: 64 });
    assert.ok(c2.every((c) => c.text.length <= 520));
  });

  it('Markdown sections carry the heading path; fenced code does not open headings', () => {
    const segs = markdownSegments('# A\n\ntext\n\n## B\n\n```\n# not a heading\n```\n\n# C\n\nend\n', true);
    assert.deepEqual(
      segs.map((s) => [s.location.heading, s.firstLine]),
      [
        [['A'], 1],
        [['A', 'B'], 5],
        [['C'], 11],
      ],
    );
  });

  it('user text reaches FTS5 only as quoted terms', () => {
    assert.deepEqual(ftsTerms('7.3.2 AURA-7 say "hi" NEAR(a b) * - : c++'), [
      '"7.3.2"',
      '"AURA-7"',
      '"say"',
      '"""hi"""',
      '"NEAR(a"',
      '"b)"',
      '"c++"',
    ]);
    assert.equal(ftsMatch('* - :'), null);
    assert.equal(ftsMatch(''), null);
  });

  it('globs: ** spans folders, * stays within one', () => {
    assert.ok(globRegex('**/*.md').test('a/b/c.md'));
    assert.ok(globRegex('**/*.md').test('c.md'));
    assert.ok(!globRegex('*.md').test('a/c.md'));
    assert.ok(globRegex('docs/**').test('docs/x/y.txt'));
    assert.ok(!globRegex('*.log').test('a.log.txt'));
  });
});
