import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { searchOne, searchWithFailover, SearchFailure, type ResolvedSearchProvider } from '../../backend/web/search-providers.js';
import { PageServer } from './web-servers.js';
import { KEY, PROVIDER_HANDLERS } from './provider-mocks.js';

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
    assert.deepEqual(await searchOne(provider('tavily'), 'rust', 5), [
      { title: 'Tavily on rust', url: 'https://tavily.example/a', snippet: 'Tavily snippet' },
    ]);
    assert.deepEqual(await searchOne(provider('brave'), 'rust', 1), [
      { title: 'Brave one', url: 'https://brave.example/1', snippet: 'The first result', date: '2026-11-01T00:00:00' },
    ]);
    assert.deepEqual(await searchOne(provider('searxng', ''), 'rust', 5), [
      { title: 'Searx result', url: 'https://searx.example/x', snippet: 'From engines', date: '2026-10-10T00:00:00' },
    ]);
    assert.deepEqual(await searchOne(provider('exa'), 'rust', 5), [
      { title: 'Exa page', url: 'https://exa.example/p', snippet: 'first highlight … second', date: '2026-09-09' },
    ]);
    assert.deepEqual(await searchOne(provider('jina'), 'rust lang', 5), [
      { title: 'Jina rust lang', url: 'https://jina.example/j', snippet: 'Jina snippet' },
    ]);
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
