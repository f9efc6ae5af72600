/**
 * Retrieval quality of knowledge-base search (DESIGN 13) on a public reading-comprehension set:
 * the SQuAD 2.0 dev slice (retrieval-data.ts). A real backend gets a provider whose embedding model
 * is the bench's word-vector server or one named by BENCH_EMBEDDINGS_URL / BENCH_EMBEDDINGS_MODEL
 * (retrieval-embeddings.ts), one knowledge base, and every paragraph as
 * a note source; once all are ready, every answerable question is searched in each mode through
 * `POST /api/knowledge/:kb/search` (top_k 10). A question scores when a result of its own paragraph
 * is among the first 5 results (hit@5; also hit@1 and MRR@10, by result rank, not deduplicated).
 * Baselines in the same run, on the same paragraphs and questions: a textbook BM25 (bm25.ts) and
 * the same embedding ranked by cosine in-process over whole paragraphs (what the vector mode
 * should reach if the product's vector path loses nothing).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { figure, pair, startListener, TSC_BACKEND, type Figure, type Listener } from './bench-kit.js';
import { Bm25 } from './bm25.js';
import { embedTexts, openEmbeddings } from './retrieval-embeddings.js';
import { loadSlice, type Slice } from './retrieval-data.js';
import { median, percentile } from './stats.js';
import { cosine } from './word-vectors.js';

export const MODES = ['lexical', 'vector', 'hybrid'] as const;
const TOP_K = 10;

export interface Scores {
  name: string;
  questions: number;
  hitAt1: number;
  hitAt5: number;
  mrrAt10: number;
  /** Questions for which nothing at all came back. */
  empty: number;
  searchP50Ms?: number;
  searchP95Ms?: number;
  /** How often the response named another mode than the one asked for (e.g. hybrid answered lexically). */
  otherMode?: number;
}

export interface RetrievalRun {
  paragraphs: number;
  articles: number;
  questions: number;
  chunks: number;
  ingestSeconds: number;
  /** The embedding model the KB used (retrieval-embeddings.ts). */
  embedding: string;
  /** The bench's own server only: requests and inputs the backend sent it, words it found no vector for. */
  embedRequests?: number;
  embedInputs?: number;
  wordsMissing?: string;
  scores: Scores[];
  /** Questions hybrid finds in its top 5 and lexical does not (gained), and the reverse (lost). */
  hybridVsLexical: { gained: number; lost: number };
  /** Questions whose vector-mode top 10 (paragraph order) is the in-process cosine top 10. */
  vectorSameAsCosine: number;
}

/** Scores from, per question, the paragraph index of each result in rank order. */
export function score(name: string, slice: Slice, ranked: number[][]): Scores {
  let hit1 = 0;
  let hit5 = 0;
  let rr = 0;
  let empty = 0;
  slice.questions.forEach((q, i) => {
    const r = ranked[i].slice(0, TOP_K).indexOf(q.paragraph);
    if (ranked[i].length === 0) empty++;
    if (r === 0) hit1++;
    if (r >= 0 && r < 5) hit5++;
    if (r >= 0) rr += 1 / (r + 1);
  });
  const n = slice.questions.length;
  return { name, questions: n, hitAt1: hit1 / n, hitAt5: hit5 / n, mrrAt10: rr / n, empty };
}

type Call = (method: string, p: string, body?: unknown) => Promise<any>;

function caller(l: Listener, credential: string): Call {
  return async (method, p, body) => {
    const res = await fetch(`${l.url}${p}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** Polls the KB until every source is ready; a failed source ends the run with its reason. */
async function waitReady(call: Call, kb: string, count: number): Promise<number> {
  const deadline = performance.now() + 10 * 60_000;
  for (;;) {
    const detail = await call('GET', `/api/knowledge/${kb}`);
    const sources = detail.sources as { name: string; state: string; chunks_total: number; error?: { message: string } }[];
    const failed = sources.find((s) => s.state === 'failed');
    if (failed) throw new Error(`source ${failed.name} failed: ${failed.error?.message}`);
    if (sources.length === count && sources.every((s) => s.state === 'ready')) return sources.reduce((a, s) => a + s.chunks_total, 0);
    if (performance.now() > deadline)
      throw new Error(`sources not ready after 10 min: ${JSON.stringify(sources.filter((s) => s.state !== 'ready'))}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function runRetrieval(log: (line: string) => void = () => {}): Promise<RetrievalRun> {
  const slice = loadSlice();
  const embeddings = await openEmbeddings();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-retrieval-'));
  let backend: Listener | undefined;
  try {
    backend = await startListener(TSC_BACKEND, ['-port', '0', '-swap-port', 'off', '-data', path.join(tmp, 'data')], {
      EXPRESS_MODE: 'release',
    });
    const call = caller(backend, await pair(backend));
    await call('POST', '/api/config/providers', {
      id: 'bench-embed',
      name: 'Bench embeddings',
      type: 'compat',
      base_url: embeddings.baseUrl,
      ...(embeddings.apiKey ? { api_key: embeddings.apiKey } : {}),
      models: [{ id: embeddings.model, kind: 'embedding' }],
    });
    const kbBody = { name: 'SQuAD 2.0 dev slice', embedding: { model: `bench-embed:${embeddings.model}` } };
    const kb = (await call('POST', '/api/knowledge', kbBody)).id as string;
    const t0 = performance.now();
    const paragraphOf = new Map<string, number>();
    for (const [i, p] of slice.paragraphs.entries()) {
      const source = await call('POST', `/api/knowledge/${kb}/sources`, { kind: 'note', title: slice.names[i], text: p.context });
      paragraphOf.set(source.id as string, i);
    }
    const chunks = await waitReady(call, kb, slice.paragraphs.length);
    const ingestSeconds = (performance.now() - t0) / 1000;
    log(`${slice.paragraphs.length} paragraphs ready in ${ingestSeconds.toFixed(1)} s (${chunks} chunks)`);

    const scores: Scores[] = [];
    const top5 = new Map<string, boolean[]>();
    const byMode = new Map<string, number[][]>();
    for (const mode of MODES) {
      const ranked: number[][] = [];
      const times: number[] = [];
      let otherMode = 0;
      for (const q of slice.questions) {
        const s0 = performance.now();
        const res = await call('POST', `/api/knowledge/${kb}/search`, { query: q.text, top_k: TOP_K, mode });
        times.push(performance.now() - s0);
        if (res.mode !== undefined && res.mode !== mode) otherMode++;
        ranked.push((res.results as { source_id: string }[]).map((r) => paragraphOf.get(r.source_id) ?? -1));
      }
      byMode.set(mode, ranked);
      top5.set(
        mode,
        slice.questions.map((q, i) => ranked[i].slice(0, 5).includes(q.paragraph)),
      );
      scores.push({
        ...score(`product ${mode}`, slice, ranked),
        searchP50Ms: median(times),
        searchP95Ms: percentile(times, 95),
        otherMode,
      });
      log(`${mode}: done`);
    }
    const local = embeddings.local ? { embedRequests: embeddings.local.requests, embedInputs: embeddings.local.inputs } : {};
    const wordsMissing = embeddings.vectors ? `${embeddings.vectors.missing} of ${embeddings.vectors.seen}` : undefined;

    const bm25 = new Bm25(slice.paragraphs.map((p) => p.context));
    scores.push(
      score(
        'baseline bm25 (bench, k1 1.2, b 0.75)',
        slice,
        slice.questions.map((q) => bm25.search(q.text, TOP_K)),
      ),
    );
    const docVectors = await embedTexts(
      embeddings,
      slice.paragraphs.map((p) => p.context),
    );
    const questionVectors = await embedTexts(
      embeddings,
      slice.questions.map((q) => q.text),
    );
    const byCosine = questionVectors.map((v) => {
      return docVectors
        .map((d, i) => ({ i, s: cosine(v, d) }))
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .slice(0, TOP_K)
        .map((x) => x.i);
    });
    scores.push(score('baseline cosine (same embedding, in-process)', slice, byCosine));

    return {
      paragraphs: slice.paragraphs.length,
      articles: new Set(slice.paragraphs.map((p) => p.title)).size,
      questions: slice.questions.length,
      chunks,
      ingestSeconds,
      embedding: embeddings.label,
      ...local,
      wordsMissing,
      hybridVsLexical: {
        gained: slice.questions.filter((_, i) => top5.get('hybrid')![i] && !top5.get('lexical')![i]).length,
        lost: slice.questions.filter((_, i) => !top5.get('hybrid')![i] && top5.get('lexical')![i]).length,
      },
      vectorSameAsCosine: byCosine.filter((c, i) => c.join() === byMode.get('vector')![i].join()).length,
      scores,
    };
  } finally {
    await backend?.stop();
    await embeddings.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The `npm run bench` rows: hit@5 of each mode against the BM25 baseline of the same run. */
export async function retrievalFigures(): Promise<Figure[]> {
  if (process.env.BENCH_EMBEDDINGS_URL)
    throw new Error('the bench table takes the bench embedding; use npm run bench:retrieval for another model');
  const run = await runRetrieval();
  const bm25 = run.scores.find((s) => s.name.startsWith('baseline bm25'))!;
  const cos = run.scores.find((s) => s.name.startsWith('baseline cosine'))!;
  // FTS5's bm25 should rank as well as a textbook one. Hybrid and vector carry no target: with the
  // bench's bag-of-words embedding they measure the fusion with a weak vector side, not the product
  // at its best (docs/benchmarks.md, "Retrieval quality").
  const targets: Record<string, Figure['target']> = { lexical: { on: 'ratio', op: '>=', value: 0.95 } };
  return MODES.map((mode) => {
    const s = run.scores.find((x) => x.name === `product ${mode}`)!;
    const extra =
      mode === 'vector'
        ? `; same embedding by in-process cosine ${(cos.hitAt5 * 100).toFixed(1)} %`
        : mode === 'hybrid'
          ? `; vs lexical +${run.hybridVsLexical.gained} / -${run.hybridVsLexical.lost} questions`
          : '';
    return figure(
      {
        group: 'retrieval',
        name: `knowledge ${mode} hit@5 (SQuAD slice)`,
        unit: '%',
        baseline: { name: 'bm25', median: bm25.hitAt5 * 100, ratio: s.hitAt5 / bm25.hitAt5 },
        target: targets[mode],
        note: `${run.questions} questions over ${run.paragraphs} paragraphs; MRR@10 ${s.mrrAt10.toFixed(3)} (bm25 ${bm25.mrrAt10.toFixed(3)})${extra}`,
      },
      [s.hitAt5 * 100],
    );
  });
}
