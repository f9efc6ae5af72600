// The five search APIs (facts/knowledge-web-chain.md §4), each spoken in its documented shape,
// and the ordered failover over them: a failure falls through to the next provider, and when all
// fail the error names each failure (never "no results": that would tell the model a lie).
import { DEFAULT_BASE_URLS, type SearchProviderType } from './web-api.js';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  date?: string;
}

/** A provider as the failover uses it: key and base URL already resolved (env overrides applied). */
export interface ResolvedSearchProvider {
  id: string;
  type: SearchProviderType;
  apiKey?: string;
  baseUrl?: string;
}

const TIMEOUT_MS = 15_000;

export class SearchFailure extends Error {
  constructor(readonly failures: { id: string; message: string }[]) {
    super(
      failures.length === 0
        ? 'No web search provider is configured (Settings → Web search).'
        : `Web search failed with every provider: ${failures.map((f) => `${f.id}: ${f.message}`).join('; ')}`,
    );
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function records(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];
}

interface Call {
  url: string;
  init: RequestInit;
  parse(body: unknown): SearchResult[];
}

function needKey(p: ResolvedSearchProvider): string {
  if (!p.apiKey) throw new Error(`no API key (set api_key or ${envName(p.id)})`);
  return p.apiKey;
}

export function envName(id: string): string {
  return `${id
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')}_API_KEY`;
}

function buildCall(p: ResolvedSearchProvider, query: string, count: number): Call {
  const base = (p.baseUrl ?? DEFAULT_BASE_URLS[p.type] ?? '').replace(/\/+$/, '');
  if (!base) throw new Error('no base_url');
  const json = { 'content-type': 'application/json', accept: 'application/json' };
  switch (p.type) {
    case 'tavily':
      return {
        url: `${base}/search`,
        init: {
          method: 'POST',
          headers: { ...json, authorization: `Bearer ${needKey(p)}` },
          body: JSON.stringify({ query, max_results: count, search_depth: 'basic' }),
        },
        parse: (b) =>
          records((b as { results?: unknown }).results).map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content) })),
      };
    case 'brave': {
      const qs = new URLSearchParams({ q: query.slice(0, 400), count: String(count) });
      return {
        url: `${base}/res/v1/web/search?${qs}`,
        init: { headers: { accept: 'application/json', 'x-subscription-token': needKey(p) } },
        parse: (b) =>
          records((b as { web?: { results?: unknown } }).web?.results).map((r) => ({
            title: str(r.title).replace(/<\/?strong>/g, ''),
            url: str(r.url),
            snippet: str(r.description).replace(/<\/?strong>/g, ''),
            ...(str(r.page_age) || str(r.age) ? { date: str(r.page_age) || str(r.age) } : {}),
          })),
      };
    }
    case 'searxng': {
      const qs = new URLSearchParams({ q: query, format: 'json' });
      return {
        url: `${base}/search?${qs}`,
        init: { headers: { accept: 'application/json', ...(p.apiKey ? { authorization: `Bearer ${p.apiKey}` } : {}) } },
        parse: (b) =>
          records((b as { results?: unknown }).results).map((r) => ({
            title: str(r.title),
            url: str(r.url),
            snippet: str(r.content),
            ...(str(r.publishedDate) ? { date: str(r.publishedDate) } : {}),
          })),
      };
    }
    case 'exa':
      return {
        url: `${base}/search`,
        init: {
          method: 'POST',
          headers: { ...json, 'x-api-key': needKey(p) },
          body: JSON.stringify({ query, numResults: count, contents: { highlights: true } }),
        },
        parse: (b) =>
          records((b as { results?: unknown }).results).map((r) => ({
            title: str(r.title),
            url: str(r.url),
            snippet: Array.isArray(r.highlights)
              ? r.highlights.filter((h) => typeof h === 'string').join(' … ')
              : str(r.text).slice(0, 500),
            ...(str(r.publishedDate) ? { date: str(r.publishedDate) } : {}),
          })),
      };
    case 'jina':
      return {
        url: `${base}/${encodeURIComponent(query)}`,
        init: { headers: { accept: 'application/json', 'x-respond-with': 'no-content', authorization: `Bearer ${needKey(p)}` } },
        parse: (b) =>
          records((b as { data?: unknown }).data).map((r) => ({
            title: str(r.title),
            url: str(r.url),
            snippet: str(r.description) || str(r.content).slice(0, 500),
            ...(str(r.date) ? { date: str(r.date) } : {}),
          })),
      };
  }
}

/** Asks one provider; throws an Error whose message says what went wrong (HTTP status, bad JSON…). */
export async function searchOne(p: ResolvedSearchProvider, query: string, count: number, signal?: AbortSignal): Promise<SearchResult[]> {
  const call = buildCall(p, query, count);
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(call.url, { ...call.init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (err) {
    if (timeout.aborted) throw new Error(`no answer within ${TIMEOUT_MS / 1000} s`, { cause: err });
    if (signal?.aborted) throw err;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`unreachable (${cause?.code ?? cause?.message ?? (err as Error).message})`, { cause: err });
  }
  const text = await res.text();
  if (!res.ok) {
    const hint =
      res.status === 401 || res.status === 403
        ? ' (check the API key' + (p.type === 'searxng' ? ' or enable the json format' : '') + ')'
        : '';
    throw new Error(`HTTP ${res.status}${hint}: ${text.replace(/\s+/g, ' ').slice(0, 200)}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error('the answer was not JSON');
  }
  return call
    .parse(body)
    .filter((r) => r.url)
    .slice(0, count);
}

/** Tries each provider in order; the first that answers wins (an empty list from a working provider is an answer). */
export async function searchWithFailover(
  providers: ResolvedSearchProvider[],
  query: string,
  count: number,
  signal?: AbortSignal,
): Promise<{ provider: string; results: SearchResult[] }> {
  const failures: { id: string; message: string }[] = [];
  for (const p of providers) {
    try {
      return { provider: p.id, results: await searchOne(p, query, count, signal) };
    } catch (err) {
      if (signal?.aborted) throw err;
      failures.push({ id: p.id, message: scrubKey((err as Error).message, p.apiKey) });
    }
  }
  throw new SearchFailure(failures);
}

function scrubKey(text: string, key?: string): string {
  return key && key.length >= 4 ? text.split(key).join('***') : text;
}
