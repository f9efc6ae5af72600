import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { searchOne, searchWithFailover, SearchFailure, type ResolvedSearchProvider } from '../../backend/web/search-providers.js';
import { PageServer } from './web-servers.js';

const KEY = 'search-key-7f3a9c2e51d4';

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Each server answers only a request in its API's documented shape (path, method, auth header, parameters). */
export const PROVIDER_HANDLERS = {
  tavily(req: IncomingMessage, res: ServerResponse, body: string) {
    if (req.method !== 'POST' || req.url !== '/search') return json(res, 404, { detail: 'not found' });
    if (req.headers.authorization !== `Bearer ${KEY}`) return json(res, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
    const input = JSON.parse(body) as { query: string; max_results: number };
    json(res, 200, {
      query: input.query,
      answer: null,
      images: [],
      results: [{ title: `Tavily on ${input.query}`, url: 'https://tavily.example/a', content: 'Tavily snippet', score: 0.9, raw_content: null }].slice(0, input.max_results),
      response_time: 0.5,
      request_id: 'r1',
    });
  },
  brave(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method !== 'GET' || url.pathname !== '/res/v1/web/search') return json(res, 404, {});
    if (req.headers['x-subscription-token'] !== KEY) return json(res, 401, { type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID' } });
    json(res, 200, {
      type: 'search',
      query: { original: url.searchParams.get('q') },
      web: {
        type: 'search',
        results: [
          { title: 'Brave <strong>one</strong>', url: 'https://brave.example/1', description: 'The <strong>first</strong> result', page_age: '2026-11-01T00:00:00' },
          { title: 'Brave two', url: 'https://brave.example/2', description: 'Second' },
        ].slice(0, Number(url.searchParams.get('count'))),
      },
    });
  },
  searxng(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/search') return json(res, 404, {});
    // SearXNG's default settings answer 403 to format=json.
    if (url.searchParams.get('format') !== 'json') return json(res, 403, {});
    json(res, 200, {
      query: url.searchParams.get('q'),
      number_of_results: 0,
      results: [
        { url: 'https://searx.example/x', title: 'Searx result', content: 'From engines', engine: 'duckduckgo', engines: ['duckduckgo'], score: 1, category: 'general', publishedDate: '2026-10-10T00:00:00' },
      ],
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    });
  },
  exa(req: IncomingMessage, res: ServerResponse, body: string) {
    if (req.method !== 'POST' || req.url !== '/search') return json(res, 404, {});
    if (req.headers['x-api-key'] !== KEY) return json(res, 401, { error: 'Invalid API key' });
    const input = JSON.parse(body) as { numResults: number };
    json(res, 200, {
      requestId: 'e1',
      results: [{ id: 'https://exa.example/p', title: 'Exa page', url: 'https://exa.example/p', publishedDate: '2026-09-09', author: null, highlights: ['first highlight', 'second'] }].slice(0, input.numResults),
      costDollars: { total: 0.005 },
    });
  },
  jina(req: IncomingMessage, res: ServerResponse) {
    if (req.headers.authorization !== `Bearer ${KEY}`) return json(res, 401, { code: 401, name: 'AuthenticationRequiredError', message: 'auth required' });
    if (req.headers.accept !== 'application/json') return json(res, 400, {});
    const query = decodeURIComponent((req.url ?? '/').slice(1));
    json(res, 200, { code: 200, status: 20000, data: [{ title: `Jina ${query}`, url: 'https://jina.example/j', description: 'Jina snippet', content: '' }] });
  },
};

describe('search providers speak their APIs', () => {
  const servers: Record<string, PageServer> = {};
  before(async () => {
    for (const [type, handler] of Object.entries(PROVIDER_HANDLERS)) servers[type] = await PageServer.start(handler);
  });
  after(async () => {
    for (const s of Object.values(servers)) await s.stop();
  });
  const provider = (type: ResolvedSearchProvider['type'], apiKey: string | undefined = KEY): ResolvedSearchProvider => ({
    id: `${type}1`,
    type,
    apiKey,
    baseUrl: servers[type]!.url,
  });

  it('reads each provider’s results as title, URL, snippet and date', async () => {
    assert.deepEqual(await searchOne(provider('tavily'), 'rust', 5), [{ title: 'Tavily on rust', url: 'https://tavily.example/a', snippet: 'Tavily snippet' }]);
    assert.deepEqual(await searchOne(provider('brave'), 'rust', 1), [
      { title: 'Brave one', url: 'https://brave.example/1', snippet: 'The first result', date: '2026-11-01T00:00:00' },
    ]);
    assert.deepEqual(await searchOne(provider('searxng', ''), 'rust', 5), [
      { title: 'Searx result', url: 'https://searx.example/x', snippet: 'From engines', date: '2026-10-10T00:00:00' },
    ]);
    assert.deepEqual(await searchOne(provider('exa'), 'rust', 5), [
      { title: 'Exa page', url: 'https://exa.example/p', snippet: 'first highlight … second', date: '2026-09-09' },
    ]);
    assert.deepEqual(await searchOne(provider('jina'), 'rust lang', 5), [{ title: 'Jina rust lang', url: 'https://jina.example/j', snippet: 'Jina snippet' }]);
  });

  it('falls through to the next provider, and names every failure when all fail (never "no results")', async () => {
    const found = await searchWithFailover([provider('tavily', 'wrong-key-123456'), provider('exa', ''), provider('brave')], 'q', 2);
    assert.equal(found.provider, 'brave1');
    assert.equal(found.results.length, 2);
    const closed = await PageServer.start(() => {});
    const closedUrl = closed.url;
    await closed.stop();
    const err = await searchWithFailover(
      [provider('tavily', 'wrong-key-123456'), provider('exa', ''), { id: 'gone', type: 'brave', apiKey: KEY, baseUrl: closedUrl }],
      'q',
      2,
    ).then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof SearchFailure);
    assert.match(err.message, /tavily1: HTTP 401 \(check the API key\)/);
    assert.match(err.message, /exa1: no API key \(set api_key or EXA1_API_KEY\)/);
    assert.match(err.message, /gone: unreachable \(ECONNREFUSED\)/);
    assert.doesNotMatch(err.message, /wrong-key-123456/);
    assert.doesNotMatch(err.message, /no results/i);
    await assert.rejects(searchWithFailover([], 'q', 2), /No web search provider is configured/);
  });
});
