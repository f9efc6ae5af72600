import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A deterministic local embeddings + rerank server (OpenAI `/v1/embeddings`, Cohere-shaped
// `/v1/rerank`): each word hashes into one of `dims` buckets (a bag of words, so texts sharing words
// are close), requests are counted, and a test can make it fail (401, 429, 500), answer a wrong
// dimension, or go slow.

export type Failure = { status: 401 | 429 | 500; times?: number; retryAfter?: string } | { wrongDims: number; times?: number };

export interface EmbeddingServer {
  /** The provider base_url (ends in /v1). */
  baseUrl: string;
  dims: number;
  /** Requests to /embeddings (answered or failed) and the inputs of the answered ones. */
  requests: number;
  inputs: number;
  rerankRequests: number;
  /** Every answered input text, in order. */
  texts: string[];
  /** Every input text as its request arrived (before any delay or failure). */
  arrived: string[];
  fail(f: Failure | null): void;
  /** Delay before each embeddings answer. */
  slowMs: number;
  /** Resolves once `n` embedding requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  close(): Promise<void>;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

export function bagOfWords(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const w of words(text)) {
    const h = fnv1a(w);
    v[h % dims] += h & 0x80000000 ? -1 : 1;
  }
  return v;
}

export async function startEmbeddingServer(options: { dims?: number; apiKey?: string } = {}): Promise<EmbeddingServer> {
  const dims = options.dims ?? 64;
  let failure: Failure | null = null;
  let failuresLeft = Infinity;
  const waiters: { n: number; resolve: () => void }[] = [];
  const state: EmbeddingServer = {
    baseUrl: '',
    dims,
    requests: 0,
    inputs: 0,
    rerankRequests: 0,
    texts: [],
    arrived: [],
    slowMs: 0,
    fail(f) {
      failure = f;
      failuresLeft = f?.times ?? Infinity;
    },
    waitForRequests(n) {
      if (state.requests >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      let body: { input?: string[] | string; query?: string; documents?: string[] };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { error: { message: 'bad json' } });
      }
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
      }
      if (req.url === '/v1/rerank') {
        state.rerankRequests++;
        const q = new Set(words(body.query ?? ''));
        const results = (body.documents ?? []).map((d, index) => {
          const w = new Set(words(d));
          const hit = [...q].filter((x) => w.has(x)).length;
          return { index, relevance_score: q.size ? hit / q.size : 0 };
        });
        return send(200, { results: results.sort((a, b) => b.relevance_score - a.relevance_score) });
      }
      if (req.url !== '/v1/embeddings') return send(404, { error: { message: 'no such route' } });
      state.requests++;
      for (const w of waiters.splice(0))
        if (state.requests >= w.n) w.resolve();
        else waiters.push(w);
      const inputs = Array.isArray(body.input) ? body.input : [body.input ?? ''];
      state.arrived.push(...inputs);
      const answer = () => {
        if (failure && failuresLeft > 0) {
          failuresLeft--;
          if ('status' in failure) {
            const messages = {
              401: 'Incorrect API key provided',
              429: 'Rate limit reached for requests',
              500: 'The server had an error while processing your request',
            };
            return send(
              failure.status,
              { error: { message: messages[failure.status], type: 'error' } },
              failure.retryAfter ? { 'retry-after': failure.retryAfter } : {},
            );
          }
          const d = failure.wrongDims;
          return send(200, {
            object: 'list',
            data: inputs.map((_t, index) => ({ object: 'embedding', index, embedding: new Array(d).fill(0.1) })),
          });
        }
        state.inputs += inputs.length;
        state.texts.push(...inputs);
        send(200, {
          object: 'list',
          model: 'bow',
          data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: bagOfWords(t, dims) })),
        });
      };
      if (state.slowMs > 0) setTimeout(answer, state.slowMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
