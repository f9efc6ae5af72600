import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ftsMatch, singleToken } from '../../backend/knowledge/fts-query.js';
import { KbIndex } from '../../backend/knowledge/kb-index.js';

// Words that half the chunks or more hold ("the", "of") get an idf of 1e-6 in FTS5's bm25, so a
// search leaves them out of its MATCH: the same passages in the same order, without bm25 reading
// the length of every chunk that holds "the".

const SOURCE = 'src_000000000001';
const FILLER = ['the harbour', 'of the island', 'the ferry and the pier', 'the tide'];

function chunkText(i: number): string {
  const rare = i % 97 === 0 ? ' quokka' : i % 13 === 0 ? ' wombat census' : '';
  return `Row ${i}: ${FILLER[i % FILLER.length]} on day ${i % 7}${rare}. Café ${i % 3 === 0 ? 'open' : 'shut'}.`;
}

describe('knowledge: terms too common to rank are left out of the search', () => {
  let dir: string;
  let index: KbIndex;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'kb-common-'));
    index = (await KbIndex.open(path.join(dir, 'index.sqlite'))).index;
    index.addSource(SOURCE, 'ready', 0);
    const drafts = Array.from({ length: 600 }, (_, i) => ({ text: chunkText(i), location: { line_start: i + 1 } }));
    index.tx(() => index.insertChunks(SOURCE, null, drafts));
  });
  after(() => {
    index.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the tokens FTS5 makes of a term: folded case and marks, none for a term it splits', () => {
    assert.equal(singleToken('Café'), 'cafe');
    assert.equal(singleToken('THE'), 'the');
    assert.equal(singleToken('AURA-7'), null);
    assert.equal(singleToken('7.3.2'), null);
  });

  it('counts from the index: "the" and "row" are common, rare words and split terms are not', () => {
    const common = index.commonTerms(['the', 'Row', 'quokka', 'wombat', 'cafe', 'Café', 'AURA-7', 'absent']);
    assert.equal(index.commonTerms(['the', 'Row', 'absent']).size, 0, 'no rarer word finds a passage');
    assert.deepEqual([...common].sort(), ['Café', 'Row', 'cafe', 'the']);
  });

  it('counts follow the index: a word becomes common once enough passages holding it are added, and rare again when they go', () => {
    assert.equal(index.commonTerms(['kangaroo']).size, 0);
    const other = 'src_000000000002';
    index.addSource(other, 'ready', 0);
    const drafts = Array.from({ length: 700 }, (_, i) => ({ text: `kangaroo sighting ${i}`, location: { line_start: i + 1 } }));
    index.tx(() => index.insertChunks(other, null, drafts));
    assert.deepEqual([...index.commonTerms(['kangaroo', 'quokka'])], ['kangaroo']);
    index.clearChunks(other);
    assert.equal(index.commonTerms(['kangaroo']).size, 0);
  });

  it('the MATCH leaves common terms out unless every term is common', () => {
    const common = (terms: string[]) => index.commonTerms(terms);
    assert.equal(ftsMatch('the quokka of the island', common), '"quokka" OR "of" OR "island"');
    assert.equal(ftsMatch('the row', common), '"the" OR "row"');
    // A rarer word that finds nothing (or a phrase FTS5 splits, not counted) leaves the common words in.
    assert.equal(ftsMatch('the AURA-7', common), '"the" OR "AURA-7"');
    assert.equal(ftsMatch('the platypus', common), '"the" OR "platypus"');
  });

  it('the same passages in the same order as the query with every term', () => {
    for (const query of ['the wombat census of the harbour', 'the quokka on the pier', 'Row the ferry wombat']) {
      const full = index.lexical(ftsMatch(query) as string, 50);
      const pruned = index.lexical(ftsMatch(query, (t) => index.commonTerms(t)) as string, 50);
      assert.ok(pruned.length > 0, query);
      // Every passage holding a rare term, ranked alike; the full query only adds near-zero tails.
      const best = full[0].bm25;
      const relevant = full.filter((h) => h.bm25 <= best * 0.1);
      assert.deepEqual(
        pruned.slice(0, relevant.length).map((h) => h.id),
        relevant.map((h) => h.id),
        query,
      );
    }
  });
});
