// The embeddings and rerank endpoints of a model's provider (facts §1, §2): OpenAI's
// `POST {base_url}/embeddings` with `encoding_format: "float"` (some servers do not speak base64,
// the OpenAI SDK's silent default), and `POST {base_url}/rerank` in the Cohere/Jina shape
// (`results`) or Voyage's (`data`). Failures carry a code and the provider's own reason.

export interface ProviderTarget {
  baseUrl: string;
  apiKey?: string;
  /** The provider's model id (without the provider prefix). */
  model: string;
}

export type FailureCode = 'provider_auth' | 'rate_limited' | 'provider_error' | 'provider_unreachable' | 'bad_response' | 'wrong_dimension';

export class ProviderFailure extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
    /** 429: how long the provider asked us to wait. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 120_000;

function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const secs = Number(header);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

function reasonOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const e = body.error;
    const m = typeof e === 'string' ? e : (e?.message ?? body.message ?? body.detail);
    if (typeof m === 'string' && m.trim()) return m.trim().slice(0, 300);
  } catch {
    /* not JSON */
  }
  return text.trim().slice(0, 300) || 'no reason given';
}

const RESET = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

async function post(target: ProviderTarget, path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const url = `${target.baseUrl}${path}`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  let res: Response;
  for (let attempt = 0; ; attempt++) {
    try {
      res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      break;
    } catch (err) {
      if (signal?.aborted) throw err;
      const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
      // A kept-alive connection the server closed as the request went out: asked again once, on a new one.
      if (attempt === 0 && cause?.code && RESET.has(cause.code)) continue;
      const why = cause ? `${(err as Error).message} (${cause.code ?? cause.message})` : (err as Error).message;
      throw new ProviderFailure('provider_unreachable', `${url} could not be reached: ${why}`);
    }
  }
  const text = await res.text();
  if (res.ok) {
    try {
      return JSON.parse(text);
    } catch {
      throw new ProviderFailure('bad_response', `${url} answered with something that is not JSON.`);
    }
  }
  const reason = reasonOf(text);
  if (res.status === 401 || res.status === 403)
    throw new ProviderFailure('provider_auth', `The provider refused the key (HTTP ${res.status}): ${reason}`);
  if (res.status === 429)
    throw new ProviderFailure(
      'rate_limited',
      `The provider is rate limiting (HTTP 429): ${reason}`,
      retryAfter(res.headers.get('retry-after')),
    );
  throw new ProviderFailure('provider_error', `The provider failed (HTTP ${res.status}): ${reason}`);
}

/** L2-normalised in place (cosine becomes a dot product); a zero vector stays zero. */
export function normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

/** One request for up to 64 inputs; vectors in input order, normalised, all of `dimensions` when given. */
export async function embed(
  target: ProviderTarget,
  inputs: string[],
  dimensions: number | null,
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const body = (await post(target, '/embeddings', { model: target.model, input: inputs, encoding_format: 'float' }, signal)) as {
    data?: { index?: number; embedding?: unknown }[];
  };
  if (!Array.isArray(body?.data) || body.data.length !== inputs.length) {
    throw new ProviderFailure(
      'bad_response',
      `The provider answered ${Array.isArray(body?.data) ? body.data.length : 'no'} embeddings for ${inputs.length} inputs.`,
    );
  }
  const out: Float32Array[] = new Array(inputs.length);
  body.data.forEach((d, i) => {
    const at = typeof d.index === 'number' ? d.index : i;
    if (
      !Array.isArray(d.embedding) ||
      d.embedding.some((x) => typeof x !== 'number' || !Number.isFinite(x)) ||
      at < 0 ||
      at >= inputs.length
    ) {
      throw new ProviderFailure('bad_response', 'The provider answered an embedding that is not a list of numbers.');
    }
    const want = dimensions ?? out.find(Boolean)?.length ?? d.embedding.length;
    if (d.embedding.length !== want) {
      throw new ProviderFailure(
        'wrong_dimension',
        `The provider answered a vector of ${d.embedding.length} dimensions; this knowledge base holds vectors of ${want}.`,
      );
    }
    out[at] = normalise(Float32Array.from(d.embedding as number[]));
  });
  if (out.some((v) => !v)) throw new ProviderFailure('bad_response', 'The provider answered embeddings with missing indexes.');
  return out;
}

/** Rerank scores by document index, best first. */
export async function rerank(
  target: ProviderTarget,
  query: string,
  documents: string[],
  signal?: AbortSignal,
): Promise<{ index: number; score: number }[]> {
  const body = (await post(target, '/rerank', { model: target.model, query, documents, top_n: documents.length }, signal)) as {
    results?: unknown;
    data?: unknown;
  };
  const list = Array.isArray(body?.results) ? body.results : Array.isArray(body?.data) ? body.data : null;
  if (!list) throw new ProviderFailure('bad_response', 'The reranker answered without results.');
  return (list as { index?: unknown; relevance_score?: unknown }[])
    .filter((r) => typeof r.index === 'number' && r.index >= 0 && r.index < documents.length && typeof r.relevance_score === 'number')
    .map((r) => ({ index: r.index as number, score: r.relevance_score as number }))
    .sort((a, b) => b.score - a.score);
}
