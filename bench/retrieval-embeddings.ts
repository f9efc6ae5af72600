/**
 * The embedding model of the retrieval-quality bench: by default the bench's own word-vector server
 * (embedding-server.ts, GloVe 6B 100-d); with BENCH_EMBEDDINGS_URL (an OpenAI-compatible base URL
 * ending in /v1, e.g. Ollama's http://localhost:11434/v1) and BENCH_EMBEDDINGS_MODEL (and
 * BENCH_EMBEDDINGS_KEY when it wants one), a real embedding model instead, so the same figures can
 * be taken with it. `embedTexts` asks the same model directly, for the in-process cosine baseline.
 */
import { EmbeddingServer } from './embedding-server.js';
import { WordVectors } from './word-vectors.js';

export const GLOVE_MODEL = 'glove-6b-100d-sif';
const BATCH = 64;

export interface Embeddings {
  /** Base URL ending in /v1, as a provider's base_url. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** What the report calls it. */
  label: string;
  /** The bench's own server (request counters), or null for an external model. */
  local: EmbeddingServer | null;
  vectors: WordVectors | null;
  stop: () => Promise<void>;
}

export async function openEmbeddings(env: NodeJS.ProcessEnv = process.env): Promise<Embeddings> {
  const url = env.BENCH_EMBEDDINGS_URL?.replace(/\/+$/, '');
  if (url) {
    const model = env.BENCH_EMBEDDINGS_MODEL;
    if (!model) throw new Error('BENCH_EMBEDDINGS_URL needs BENCH_EMBEDDINGS_MODEL (the embedding model id at that server)');
    const apiKey = env.BENCH_EMBEDDINGS_KEY || undefined;
    return { baseUrl: url, model, apiKey, label: `${model} at ${url}`, local: null, vectors: null, stop: async () => {} };
  }
  const vectors = WordVectors.load();
  const server = new EmbeddingServer(vectors, GLOVE_MODEL);
  await server.start();
  return {
    baseUrl: `${server.url}/v1`,
    model: GLOVE_MODEL,
    label: 'GloVe 6B 100-d, SIF-weighted mean (bench server)',
    local: server,
    vectors,
    stop: () => server.stop(),
  };
}

/** Unit-length vectors of `texts` from the model, in batches of 64. */
export async function embedTexts(e: Embeddings, texts: string[]): Promise<number[][]> {
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += BATCH) {
    const input = texts.slice(i, i + BATCH);
    const res = await fetch(`${e.baseUrl}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(e.apiKey ? { authorization: `Bearer ${e.apiKey}` } : {}) },
      body: JSON.stringify({ model: e.model, input, encoding_format: 'float' }),
    });
    if (res.status !== 200) throw new Error(`embeddings ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const body = (await res.json()) as { data: { index: number; embedding: number[] }[] };
    const rows = [...body.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    if (rows.length !== input.length) throw new Error(`embeddings: ${rows.length} vectors for ${input.length} inputs`);
    for (const v of rows) {
      const norm = Math.hypot(...v) || 1;
      out.push(v.map((x) => x / norm));
    }
  }
  return out;
}
