import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { replyCitations, withContextBlock } from '../../backend/chat/knowledge-turn.js';
import type { KnowledgeBase, KnowledgeHit, KnowledgeReader, SourceSpan } from '../../backend/knowledge/knowledge-api.js';
import { describeLocation, KnowledgeTurn } from '../../backend/knowledge/knowledge-tools.js';
import { SourceNumbers } from '../../backend/tools/source-numbers.js';
import type { ToolSpec } from '../../backend/tools/tool-source.js';

interface FakeChunk {
  chunk_id: string;
  text: string;
  location: { page?: number; heading?: string[] };
}

/** A reader over a few in-memory sources: a search finds the chunks that hold every query word. */
class FakeReader implements KnowledgeReader {
  calls: string[] = [];
  constructor(private readonly kbs: { kb: KnowledgeBase; sources: { id: string; name: string; chunks: FakeChunk[] }[] }[]) {}

  async describe(ids: string[]) {
    return this.kbs.filter((k) => ids.includes(k.kb.id)).map((k) => k.kb);
  }
  async search(ids: string[], query: string, options?: { top_k?: number }) {
    this.calls.push(`search ${ids.join(',')} ${query}`);
    const words = query.toLowerCase().split(/\s+/);
    const hits: KnowledgeHit[] = [];
    for (const k of this.kbs.filter((x) => ids.includes(x.kb.id)))
      for (const s of k.sources)
        for (const c of s.chunks)
          if (words.every((w) => c.text.toLowerCase().includes(w)))
            hits.push({
              kb_id: k.kb.id,
              source_id: s.id,
              name: s.name,
              chunk_id: c.chunk_id,
              text: c.text,
              location: c.location,
              score: 1,
            });
    return hits.slice(0, options?.top_k ?? 8);
  }
  async read(kbId: string, sourceId: string, span?: { from?: number; to?: number }): Promise<SourceSpan> {
    this.calls.push(`read ${kbId} ${sourceId} ${span?.from ?? ''}-${span?.to ?? ''}`);
    const s = this.kbs.find((k) => k.kb.id === kbId)?.sources.find((x) => x.id === sourceId);
    if (!s) throw new Error(`no source ${sourceId}`);
    const from = span?.from ?? 0;
    const to = span?.to ?? s.chunks.length - 1;
    return {
      kb_id: kbId,
      source_id: sourceId,
      name: s.name,
      chunks: s.chunks.slice(from, to + 1).map((c, i) => ({ ...c, seq: from + i })),
      chunks_total: s.chunks.length,
    };
  }
  async wholeText(ids: string[], maxChars: number) {
    const out = this.kbs
      .filter((k) => ids.includes(k.kb.id))
      .flatMap((k) =>
        k.sources.map((s) => ({ kb_id: k.kb.id, source_id: s.id, name: s.name, text: s.chunks.map((c) => c.text).join('\n') })),
      );
    return out.reduce((n, s) => n + s.text.length, 0) > maxChars ? null : out;
  }
}

const kb = (id: string, name: string): KnowledgeBase => ({
  id,
  name,
  description: `${name} docs`,
  embedding: null,
  rerank: null,
  chunking: { tokens: 512, overlap: 64 },
  created_at: '2026-11-26T00:00:00Z',
  updated_at: '2026-11-26T00:00:00Z',
});

function reader(): FakeReader {
  return new FakeReader([
    {
      kb: kb('kb-a', 'Handbook'),
      sources: [
        {
          id: 'src-1',
          name: 'manual.pdf',
          chunks: [
            { chunk_id: 'c-1', text: 'The AURA-7 valve opens at 7.3 bar.', location: { page: 3 } },
            { chunk_id: 'c-2', text: 'Close the valve before service.', location: { page: 4 } },
          ],
        },
      ],
    },
    {
      kb: kb('kb-b', 'Notes'),
      sources: [
        {
          id: 'src-2',
          name: 'notes.md',
          chunks: [{ chunk_id: 'c-9', text: 'The valve was replaced in May.', location: { heading: ['Log', 'May'] } }],
        },
      ],
    },
  ]);
}

const signal = new AbortController().signal;
const spec = (tool: string) =>
  ({ name: tool, tool, server: 'knowledge', needsApproval: false, description: '', inputSchema: {} }) as ToolSpec;

describe('knowledge in a chat turn (fake reader)', () => {
  it('a deleted KB is skipped; none left means no knowledge at all', async () => {
    const r = reader();
    assert.equal(
      await KnowledgeTurn.prepare(r, ['kb-gone'], { offerTools: true, contextWindow: 10, userText: 'x', numbers: new SourceNumbers() }),
      null,
    );
    const turn = await KnowledgeTurn.prepare(r, ['kb-gone', 'kb-a'], {
      offerTools: true,
      contextWindow: 10,
      userText: 'x',
      numbers: new SourceNumbers(),
    });
    assert.deepEqual(
      turn?.kbs.map((k) => k.id),
      ['kb-a'],
    );
  });

  it('whole text when it fits in a quarter of the window, one numbered source each; else tools for a tools model', async () => {
    const whole = await KnowledgeTurn.prepare(reader(), ['kb-a', 'kb-b'], {
      offerTools: true,
      contextWindow: 1000,
      userText: 'valve',
      numbers: new SourceNumbers(),
    });
    assert.equal(whole?.mode, 'whole');
    assert.match(whole!.contextBlock, /\[1\] manual\.pdf\nThe AURA-7 valve opens at 7\.3 bar\.\nClose the valve/);
    assert.match(whole!.contextBlock, /\[2\] notes\.md\nThe valve was replaced/);
    assert.match(whole!.contextBlock, /Cite what you use inline as \[n\]/);
    assert.deepEqual(await whole!.list(), [], 'no tools when the whole text is sent');
    // 100 tokens → 100 characters: the ~100 characters of text no longer fit.
    const tools = await KnowledgeTurn.prepare(reader(), ['kb-a', 'kb-b'], {
      offerTools: true,
      contextWindow: 80,
      userText: 'valve',
      numbers: new SourceNumbers(),
    });
    assert.equal(tools?.mode, 'tools');
    assert.equal(tools!.contextBlock, '');
    assert.deepEqual(
      (await tools!.list()).map((s) => s.name),
      ['knowledge_search', 'knowledge_read'],
    );
    assert.match(await tools!.systemPrompt(), /Handbook \(id kb-a\): Handbook docs/);
  });

  it('a model without tools gets the top passages for the user text, numbered, with where they sit', async () => {
    const r = reader();
    const turn = await KnowledgeTurn.prepare(r, ['kb-a', 'kb-b'], {
      offerTools: false,
      contextWindow: 80,
      userText: 'valve',
      numbers: new SourceNumbers(),
    });
    assert.equal(turn?.mode, 'passages');
    assert.deepEqual(r.calls, ['search kb-a,kb-b valve']);
    assert.match(turn!.contextBlock, /\[1\] manual\.pdf · p\. 3\nThe AURA-7 valve/);
    assert.match(turn!.contextBlock, /\[3\] notes\.md · Log › May\nThe valve was replaced/);
    const none = await KnowledgeTurn.prepare(reader(), ['kb-a'], {
      offerTools: false,
      contextWindow: 40,
      userText: 'zebra',
      numbers: new SourceNumbers(),
    });
    assert.match(none!.contextBlock, /hold nothing relevant/);
  });

  it('tools number passages after the web sources, keep a chunk’s number, and the cited ones become citations', async () => {
    const numbers = new SourceNumbers();
    numbers.next(); // a web page took [1]
    const turn = (await KnowledgeTurn.prepare(reader(), ['kb-a', 'kb-b'], { offerTools: true, contextWindow: 80, userText: '', numbers }))!;
    const found = await turn.call('ws', spec('knowledge_search'), { query: 'valve', knowledge_base: 'Handbook' }, signal);
    assert.equal(found.ok, true);
    assert.match(found.content, /\[2\] manual\.pdf · p\. 3\nsource_id: src-1\nThe AURA-7/);
    assert.match(found.content, /\[3\] manual\.pdf · p\. 4/);
    assert.doesNotMatch(found.content, /notes\.md/, 'knowledge_base limits the search');
    const read = await turn.call('ws', spec('knowledge_read'), { source_id: 'src-1', from: 0, to: 1 }, signal);
    assert.match(read.content, /\[2\] manual\.pdf · p\. 3 \(chunk 0\)/);
    assert.match(read.content, /\[3\] manual\.pdf · p\. 4 \(chunk 1\)/);
    const bad = await turn.call('ws', spec('knowledge_search'), { query: 'valve', knowledge_base: 'Other' }, signal);
    assert.equal(bad.ok, false);
    assert.match(bad.content, /knowledge_base must be one of kb-a \(Handbook\), kb-b \(Notes\)/);
    const badRead = await turn.call('ws', spec('knowledge_read'), { source_id: 'src-1', from: 2, to: 1 }, signal);
    assert.match(badRead.content, /from must not be after to/);
    const missing = await turn.call('ws', spec('knowledge_read'), { source_id: 'src-x' }, signal);
    assert.match(missing.content, /There is no source src-x/);
    const cites = await replyCitations(new Map(), null, turn, numbers, 'Opens at 7.3 bar [2]; see [1] and [9].');
    assert.deepEqual(cites, [
      { n: 2, kind: 'knowledge', kb_id: 'kb-a', source_id: 'src-1', chunk_id: 'c-1', name: 'manual.pdf', location: { page: 3 } },
    ]);
  });

  it('a cited whole source opens at its first chunk; provider citations follow the tools’ numbers', async () => {
    const numbers = new SourceNumbers();
    const turn = (await KnowledgeTurn.prepare(reader(), ['kb-b'], { offerTools: false, contextWindow: 1000, userText: 'x', numbers }))!;
    const provider = new Map([['https://a.example/', { url: 'https://a.example/', title: 'A' }]]);
    const cites = await replyCitations(provider, null, turn, numbers, 'Replaced in May [1].');
    assert.deepEqual(cites, [
      {
        n: 1,
        kind: 'knowledge',
        kb_id: 'kb-b',
        source_id: 'src-2',
        chunk_id: 'c-9',
        name: 'notes.md',
        location: { heading: ['Log', 'May'] },
      },
      { n: 2, kind: 'web', url: 'https://a.example/', title: 'A' },
    ]);
  });

  it('the context block goes ahead of the last user message, not into older ones', () => {
    const messages = withContextBlock(
      [
        { role: 'user', blocks: [{ type: 'text', text: 'first' }] },
        { role: 'assistant', blocks: [{ type: 'text', text: 'ok' }] },
        { role: 'user', blocks: [{ type: 'text', text: 'second' }] },
        { role: 'assistant', blocks: [{ type: 'text', text: 'calling' }] },
      ],
      '<knowledge>x</knowledge>',
    );
    assert.deepEqual(messages[0]!.blocks, [{ type: 'text', text: 'first' }]);
    assert.deepEqual(messages[2]!.blocks, [
      { type: 'text', text: '<knowledge>x</knowledge>' },
      { type: 'text', text: 'second' },
    ]);
    assert.equal(describeLocation('a.ts', { file: 'src/a.ts', line_start: 3, line_end: 9 }), 'a.ts · src/a.ts · lines 3–9');
  });
});
