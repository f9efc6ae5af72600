import { embed, rerank, type ProviderTarget } from './embed-client.js';
import { ftsMatch } from './fts-query.js';
import type { KbFile } from './kb-files.js';
import type { KbIndex } from './kb-index.js';
import type { SearchMode } from './knowledge-api.js';
import type { VectorIndex } from './vector-index.js';

// Search in one KB (DESIGN 13): FTS5 bm25 over quoted terms, cosine over the KB model's vectors,
// reciprocal rank fusion (k = 60), the reranker when the KB has one, and a relevance floor so that
// "nothing relevant" is an answer:
// - lexical: a passage must match a query term and score at least LEXICAL_FLOOR of the best bm25;
// - vector: cosine similarity at least VECTOR_FLOOR (unrelated texts sit near 0 for normalised
//   embeddings; related ones well above);
// - hybrid: a passage must pass the floor on at least one side;
// - reranked: relevance_score at least RERANK_FLOOR (the rerankers' scores are 0..1).

export const RRF_K = 60;
export const LEXICAL_FLOOR = 0.1;
export const VECTOR_FLOOR = 0.2;
export const RERANK_FLOOR = 0.05;

export interface SearchDeps {
  kb: KbFile;
  index: KbIndex;
  /** The KB's in-memory vectors of its current model, or null when it has none yet. */
  vectors: () => VectorIndex | null;
  target: (ref: string) => Promise<ProviderTarget>;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface RankedChunk {
  id: number;
  score: number;
}

function lexical(d: SearchDeps, query: string, limit: number): RankedChunk[] {
  const match = ftsMatch(query, (terms) => d.index.commonTerms(terms));
  if (!match) return [];
  const hits = d.index.lexical(match, limit);
  if (hits.length === 0) return [];
  const best = -hits[0].bm25;
  return hits.filter((h) => -h.bm25 >= best * LEXICAL_FLOOR).map((h) => ({ id: h.id, score: -h.bm25 }));
}

/**
 * The query's embedding by the KB's model, as a promise that never rejects. The request is on its
 * way when this resolves (the provider's address is resolved first), so the caller can rank the
 * words meanwhile.
 */
async function sendQuery(
  d: SearchDeps,
  vectors: VectorIndex,
  query: string,
): Promise<{ answer: Promise<{ q: Float32Array } | { err: unknown }> }> {
  try {
    const target = await d.target(d.kb.embedding?.model as string);
    // Wrapped: an async function would wait for a promise it returns.
    return {
      answer: embed(target, [query], vectors.dims, d.signal).then(
        ([q]) => ({ q }),
        (err: unknown) => ({ err }),
      ),
    };
  } catch (err) {
    return { answer: Promise.resolve({ err }) };
  }
}

function vector(d: SearchDeps, vectors: VectorIndex, q: Float32Array, limit: number): RankedChunk[] {
  const model = d.kb.embedding?.model;
  if (!model) return [];
  // Approximate int8 scan, then the exact float32 cosine of the best candidates.
  const candidates = vectors.top(q, Math.max(limit * 4, 100));
  const exact = d.index.vectorsOf(
    model,
    candidates.map((c) => c.id),
  );
  const scored: RankedChunk[] = [];
  for (const c of candidates) {
    const v = exact.get(c.id);
    if (!v || v.length !== q.length) continue;
    let s = 0;
    for (let i = 0; i < q.length; i++) s += q[i] * v[i];
    if (s >= VECTOR_FLOOR) scored.push({ id: c.id, score: s });
  }
  return scored.sort((a, b) => b.score - a.score).slice(0, limit);
}

/** Reciprocal rank fusion: each list gives 1 / (k + rank) to its entries. */
export function fuse(lists: RankedChunk[][], k = RRF_K): RankedChunk[] {
  const scores = new Map<number, number>();
  for (const list of lists) list.forEach((c, rank) => scores.set(c.id, (scores.get(c.id) ?? 0) + 1 / (k + rank + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

export async function searchKb(
  d: SearchDeps,
  query: string,
  topK: number,
  mode: SearchMode,
): Promise<{ ranked: RankedChunk[]; mode: SearchMode }> {
  const limit = Math.max(50, topK * 5);
  const vectors = d.kb.embedding ? d.vectors() : null;
  let used: SearchMode = vectors && vectors.size > 0 ? mode : 'lexical';
  let ranked: RankedChunk[];
  if (used === 'lexical') ranked = lexical(d, query, limit);
  else {
    // The words are ranked while the query's embedding is on its way (one waits for the other only
    // as long as the longer of the two): once the request has left, the FTS5 query runs.
    const { answer } = await sendQuery(d, vectors as VectorIndex, query);
    let words: RankedChunk[] | null = null;
    if (used === 'hybrid') {
      await new Promise((resolve) => setImmediate(resolve)); // the request's bytes leave first
      words = lexical(d, query, limit);
    }
    const got = await answer;
    if ('err' in got) {
      if (d.signal?.aborted) throw got.err;
      // The provider is down: words still answer (the response says which mode was used).
      d.log?.(`knowledge: query embedding failed, answering lexically: ${(got.err as Error).message}`);
      used = 'lexical';
      ranked = words ?? lexical(d, query, limit);
    } else {
      const vec = vector(d, vectors as VectorIndex, got.q, limit);
      ranked = used === 'vector' ? vec : fuse([words ?? [], vec]);
    }
  }
  if (d.kb.rerank && ranked.length > 0) {
    const pool = ranked.slice(0, Math.min(50, Math.max(topK * 3, 20)));
    const texts = d.index.chunks(pool.map((r) => r.id));
    try {
      const order = await rerank(
        await d.target(d.kb.rerank.model),
        query,
        pool.map((r) => texts.get(r.id)?.text ?? ''),
        d.signal,
      );
      ranked = order.filter((o) => o.score >= RERANK_FLOOR).map((o) => ({ id: pool[o.index].id, score: o.score }));
    } catch (err) {
      if (d.signal?.aborted) throw err;
      d.log?.(`knowledge: rerank failed, keeping the fused order: ${(err as Error).message}`);
    }
  }
  return { ranked: ranked.slice(0, topK), mode: used };
}
