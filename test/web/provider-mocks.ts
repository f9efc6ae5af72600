import type { IncomingMessage, ServerResponse } from 'node:http';

export const KEY = 'search-key-7f3a9c2e51d4';

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Each server answers only a request in its API's documented shape (path, method, auth header, parameters). */
export const PROVIDER_HANDLERS = {
  tavily(req: IncomingMessage, res: ServerResponse, body: string) {
    if (req.method !== 'POST' || req.url !== '/search') return json(res, 404, { detail: 'not found' });
    if (req.headers.authorization !== `Bearer ${KEY}`)
      return json(res, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
    const input = JSON.parse(body) as { query: string; max_results: number };
    json(res, 200, {
      query: input.query,
      answer: null,
      images: [],
      results: [
        { title: `Tavily on ${input.query}`, url: 'https://tavily.example/a', content: 'Tavily snippet', score: 0.9, raw_content: null },
      ].slice(0, input.max_results),
      response_time: 0.5,
      request_id: 'r1',
    });
  },
  brave(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method !== 'GET' || url.pathname !== '/res/v1/web/search') return json(res, 404, {});
    if (req.headers['x-subscription-token'] !== KEY)
      return json(res, 401, { type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID' } });
    json(res, 200, {
      type: 'search',
      query: { original: url.searchParams.get('q') },
      web: {
        type: 'search',
        results: [
          {
            title: 'Brave <strong>one</strong>',
            url: 'https://brave.example/1',
            description: 'The <strong>first</strong> result',
            page_age: '2026-11-01T00:00:00',
          },
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
        {
          url: 'https://searx.example/x',
          title: 'Searx result',
          content: 'From engines',
          engine: 'duckduckgo',
          engines: ['duckduckgo'],
          score: 1,
          category: 'general',
          publishedDate: '2026-10-10T00:00:00',
        },
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
      results: [
        {
          id: 'https://exa.example/p',
          title: 'Exa page',
          url: 'https://exa.example/p',
          publishedDate: '2026-09-09',
          author: null,
          highlights: ['first highlight', 'second'],
        },
      ].slice(0, input.numResults),
      costDollars: { total: 0.005 },
    });
  },
  jina(req: IncomingMessage, res: ServerResponse) {
    if (req.headers.authorization !== `Bearer ${KEY}`)
      return json(res, 401, { code: 401, name: 'AuthenticationRequiredError', message: 'auth required' });
    if (req.headers.accept !== 'application/json') return json(res, 400, {});
    const query = decodeURIComponent((req.url ?? '/').slice(1));
    json(res, 200, {
      code: 200,
      status: 20000,
      data: [{ title: `Jina ${query}`, url: 'https://jina.example/j', description: 'Jina snippet', content: '' }],
    });
  },
};
