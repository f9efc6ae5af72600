import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ChatRig, model } from '../chat/chat-harness.js';
import { KEY, PROVIDER_HANDLERS } from './provider-mocks.js';
import { articlePage, PageServer, paragraphsOf } from './web-servers.js';

describe('web search in chat turns (built-in tools, compat model)', () => {
  let mock: Aimock;
  let relay: RecordingRelay;
  let rig: ChatRig;
  let brave: PageServer;
  let tavily: PageServer;
  let pages: PageServer;
  const main = paragraphsOf(4, 30, 'body');

  before(async () => {
    brave = await PageServer.start(PROVIDER_HANDLERS.brave);
    tavily = await PageServer.start(PROVIDER_HANDLERS.tavily);
    pages = await PageServer.start((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(articlePage(main, 'Local Wiki Page'));
    });
    mock = await Aimock.start([
      {
        match: { userMessage: 'search it', hasToolResult: false },
        response: { toolCalls: [{ name: 'web_search', arguments: '{"query":"rust news","max_results":2}' }] },
      },
      { match: { userMessage: 'search it', hasToolResult: true }, response: { content: 'Rust news is in [2] and also [1].' } },
      {
        match: { userMessage: 'read it', hasToolResult: false },
        response: { toolCalls: [{ name: 'web_fetch', arguments: JSON.stringify({ url: `${pages.url}/wiki` }) }] },
      },
      { match: { userMessage: 'read it', hasToolResult: true }, response: { content: 'The wiki page explains it.' } },
      {
        match: { userMessage: 'metadata', hasToolResult: false },
        response: { toolCalls: [{ name: 'web_fetch', arguments: '{"url":"http://169.254.169.254/latest/meta-data/"}' }] },
      },
      { match: { userMessage: 'metadata', hasToolResult: true }, response: { content: 'That address was refused.' } },
      { match: { userMessage: 'plain' }, response: { content: 'No search needed.' } },
    ]);
    relay = await RecordingRelay.start(mock.url);
    rig = await ChatRig.start([{ id: 'prov', type: 'compat', base_url: `${relay.url}/v1`, models: [model('m1')] }], {
      start: { env: { BRAVE1_API_KEY: KEY } },
    });
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await relay?.stop();
    await mock?.stop();
    for (const s of [brave, tavily, pages]) await s?.stop();
  });

  it('GET/PUT /api/config/web: keys masked, env overrides, an entry without api_key keeps its key, bad input named', async () => {
    const empty = await rig.ok('GET', '/api/config/web');
    assert.deepEqual(empty, { web_search: { providers: [], approval: 'auto' }, web_fetch: { allow_hosts: [] } });
    const body = {
      web_search: {
        providers: [
          { id: 'tavily1', type: 'tavily', api_key: 'tvly-wrong-key-000000', base_url: tavily.url },
          { id: 'brave1', type: 'brave', base_url: brave.url },
        ],
        approval: 'auto',
      },
      web_fetch: { allow_hosts: [pages.host] },
    };
    const saved = await rig.ok('PUT', '/api/config/web', body);
    assert.deepEqual(saved.web_search.providers[0], {
      id: 'tavily1',
      type: 'tavily',
      base_url: tavily.url,
      api_key_set: true,
      api_key_hint: 'tvl...0000',
      api_key_source: 'file',
    });
    assert.equal(saved.web_search.providers[1].api_key_source, 'env');
    assert.equal(saved.web_search.providers[1].api_key_hint, 'sea...51d4');
    assert.ok(!JSON.stringify(saved).includes('tvly-wrong-key-000000'));
    // Sent again without api_key: the stored key stays.
    const again = await rig.ok('PUT', '/api/config/web', {
      ...body,
      web_search: {
        ...body.web_search,
        providers: [{ id: 'tavily1', type: 'tavily', base_url: tavily.url }, body.web_search.providers[1]],
      },
    });
    assert.equal(again.web_search.providers[0].api_key_hint, 'tvl...0000');
    const bad = await rig.call('PUT', '/api/config/web', { web_search: { providers: [{ id: 'g', type: 'google' }] } });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /web_search\.providers\.0\.type|type must be one of tavily, brave, searxng, exa, jina/);
    const badHost = await rig.call('PUT', '/api/config/web', { web_fetch: { allow_hosts: ['no-port'] } });
    assert.equal(badHost.status, 400);
    assert.match(JSON.stringify(badHost.body), /host:port/);
    const test = await rig.ok('POST', '/api/config/web/test', {});
    assert.deepEqual(
      test.results.map((r: { id: string; ok: boolean }) => [r.id, r.ok]),
      [
        ['tavily1', false],
        ['brave1', true],
      ],
    );
  });

  it('the profile key web_search: defaults, and bad values named', async () => {
    const profile = await rig.ok('GET', `/api/profiles/${rig.profileId}`);
    assert.deepEqual(profile.web_search, { enabled: false, mode: 'auto', max_uses: 5 });
    for (const [body, pattern] of [
      [{ web_search: { mode: 'google' } }, /mode must be one of auto, native, tools/],
      [{ web_search: { max_uses: 0 } }, /max_uses must be between 1 and 20/],
      [{ web_search: { enabled: 'yes' } }, /enabled must be true or false/],
    ] as const) {
      const res = await rig.call('PUT', `/api/profiles/${rig.profileId}`, body);
      assert.equal(res.status, 400);
      assert.match(JSON.stringify(res.body), pattern);
    }
  });

  it('a session with web search on offers the tools; failover reaches brave; the reply stores numbered citations', async () => {
    await rig.setProfile({ web_search: { enabled: false } });
    const sid = await rig.newSession();
    const patched = await rig.ok('PATCH', rig.sessionsPath(sid), { web_search: true });
    assert.equal(patched.web_search_override, true);
    const { frames, end } = await rig.turn(sid, 'search it');
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const call = frames.find((f) => f.type === 'turn.tool_call');
    assert.deepEqual([call.server, call.tool, call.arguments], ['web', 'web_search', { query: 'rust news', max_results: 2 }]);
    const result = frames.find((f) => f.type === 'turn.tool_result');
    assert.equal(result.ok, true);
    assert.match(result.content, /provider brave1/);
    assert.match(result.content, /\[1\] Brave one\nURL: https:\/\/brave\.example\/1\nDate: 2026-11-01T00:00:00\nThe first result/);
    assert.match(result.content, /\[2\] Brave two\nURL: https:\/\/brave\.example\/2/);
    const session = await rig.session(sid);
    const reply = session.messages.at(-1);
    assert.deepEqual(reply.citations, [
      { n: 1, kind: 'web', url: 'https://brave.example/1', title: 'Brave one' },
      { n: 2, kind: 'web', url: 'https://brave.example/2', title: 'Brave two' },
    ]);
    const request = relay.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!;
    assert.deepEqual(request.json.tools.map((t: { function: { name: string } }) => t.function.name).sort(), ['web_fetch', 'web_search']);
    assert.equal(tavily.hits.length > 0, true, 'tavily was tried first');
  });

  it('web_fetch reads an allow_hosts page; the metadata address is refused with a clear tool error', async () => {
    await rig.setProfile({ web_search: { enabled: true } });
    const sid = await rig.newSession();
    const read = await rig.turn(sid, 'read it');
    const result = read.frames.find((f) => f.type === 'turn.tool_result');
    assert.equal(result.ok, true, result.content);
    assert.match(result.content, /^\[1\] Local Wiki Page/);
    assert.ok(result.content.includes(main[0]!.slice(0, -1)));
    assert.ok(!result.content.includes('FOOTER-TEXT'));
    const reply = (await rig.session(sid)).messages.at(-1);
    assert.deepEqual(reply.citations, [{ n: 1, kind: 'web', url: `${pages.url}/wiki`, title: 'Local Wiki Page' }]);
    const meta = await rig.turn(sid, 'metadata');
    const refused = meta.frames.find((f) => f.type === 'turn.tool_result');
    assert.equal(refused.ok, false);
    assert.match(refused.content, /169\.254\.169\.254 is refused: it is a link-local address/);
  });

  it('a session override of false offers no web tools even when the profile turns search on', async () => {
    const sid = await rig.newSession();
    await rig.ok('PATCH', rig.sessionsPath(sid), { web_search: false });
    const before = relay.requests.length;
    const { end } = await rig.turn(sid, 'plain');
    assert.equal(end.type, 'turn.completed');
    const sent = relay.requests.slice(before).find((r) => r.path.endsWith('/chat/completions'))!;
    assert.equal(sent.json.tools, undefined);
    const badPatch = await rig.call('PATCH', rig.sessionsPath(sid), { web_search: 'yes' });
    assert.equal(badPatch.status, 400);
    assert.match(JSON.stringify(badPatch.body), /web_search must be true, false or null/);
  });

  it('approval ask: a web tool call waits for the approvals endpoint', async () => {
    const current = await rig.ok('GET', '/api/config/web');
    await rig.ok('PUT', '/api/config/web', {
      web_search: {
        providers: current.web_search.providers.map(({ id, type, base_url }: any) => ({ id, type, base_url })),
        approval: 'ask',
      },
      web_fetch: current.web_fetch,
    });
    const sid = await rig.newSession();
    const watch = await rig.watch();
    try {
      const { turn_id } = await rig.send(sid, 'search it');
      const call = await watch.wait(turn_id, (m) => m.type === 'turn.tool_call');
      assert.equal(call.needs_approval, true);
      const hits = brave.hits.length;
      await rig.ok('POST', `${rig.sessionsPath(sid)}/turns/${turn_id}/approvals`, { call_id: call.call_id, decision: 'deny' });
      const end = await watch.end(turn_id);
      assert.equal(end.type, 'turn.completed');
      const result = watch.frames(turn_id).find((f) => f.type === 'turn.tool_result');
      assert.match(result.content, /denied/);
      assert.equal(brave.hits.length, hits, 'a denied search reached the provider');
    } finally {
      watch.close();
    }
  });
});
