import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ScriptedSse, sse } from '../helpers/scripted-sse.js';
import { ChatRig, model } from '../chat/chat-harness.js';

for (const type of ['native', 'responsemode'] as const) {
  describe(`the provider's own web search over ${type}: raw requests`, () => {
    let mock: Aimock;
    let relay: RecordingRelay;
    let rig: ChatRig;
    before(async () => {
      mock = await Aimock.start([{ match: { userMessage: 'hi' }, response: { content: 'Hello.' } }]);
      relay = await RecordingRelay.start(mock.url);
      const baseUrl = type === 'native' ? relay.url : `${relay.url}/v1`;
      rig = await ChatRig.start([{ id: 'prov', type, base_url: baseUrl, models: [model('m1')] }], {
        profile: { web_search: { enabled: true, max_uses: 3 } },
      });
    });
    after(async () => {
      await rig?.proc.stop();
      rig?.proc.cleanup();
      await relay?.stop();
      await mock?.stop();
    });

    const lastBody = () => relay.requests.filter((r) => r.method === 'POST').at(-1)!.json;

    it('passes the search tool through when search is on, and not when the session turns it off', async () => {
      const sid = await rig.newSession();
      const on = await rig.turn(sid, 'hi');
      assert.equal(on.end.type, 'turn.completed', JSON.stringify(on.end));
      const tools = lastBody().tools as Record<string, unknown>[];
      const expected = type === 'native' ? { type: 'web_search_20250305', name: 'web_search', max_uses: 3 } : { type: 'web_search' };
      assert.deepEqual(
        tools.filter((t) => String(t.type).startsWith('web_search')),
        [expected],
      );
      // The built-in tools are not offered beside the provider's own.
      assert.ok(!JSON.stringify(tools).includes('web_fetch'));
      await rig.ok('PATCH', rig.sessionsPath(sid), { web_search: false });
      await rig.turn(sid, 'hi');
      assert.ok(!JSON.stringify(lastBody().tools ?? []).includes('web_search'));
    });

    it('mode "tools" offers the built-in tools instead', async () => {
      await rig.setProfile({ web_search: { enabled: true, mode: 'tools' } });
      const sid = await rig.newSession();
      await rig.turn(sid, 'hi');
      const names = JSON.stringify(lastBody().tools);
      assert.ok(names.includes('"web_fetch"'));
      assert.ok(!names.includes('web_search_20250305'));
      assert.ok(!names.includes('"type":"web_search"'));
      await rig.setProfile({ web_search: { enabled: true, max_uses: 3 } });
    });
  });
}

describe('provider citations become stored citations', () => {
  let fake: ScriptedSse;
  let rig: ChatRig;
  before(async () => {
    fake = await ScriptedSse.start();
    rig = await ChatRig.start(
      [
        { id: 'nat', type: 'native', base_url: fake.url, models: [model('m1')] },
        { id: 'resp', type: 'responsemode', base_url: `${fake.url}/v1`, models: [model('m1')] },
      ],
      { profile: { web_search: { enabled: true } } },
    );
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await fake?.stop();
  });

  const nativeStream = [
    sse.event('message_start', {
      type: 'message_start',
      message: { id: 'msg_1', model: 'm1', usage: { input_tokens: 10, output_tokens: 0 } },
    }),
    sse.event('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
    }),
    sse.event('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: '{"query":"claude ' },
    }),
    sse.event('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: 'news"}' },
    }),
    sse.event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse.event('content_block_start', {
      type: 'content_block_start',
      index: 1,
      content_block: {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_1',
        content: [
          { type: 'web_search_result', url: 'https://news.example/a', title: 'News A', encrypted_content: 'ENC-A', page_age: null },
          { type: 'web_search_result', url: 'https://news.example/b', title: 'News B', encrypted_content: 'ENC-B', page_age: '2 days' },
        ],
      },
    }),
    sse.event('content_block_stop', { type: 'content_block_stop', index: 1 }),
    sse.event('content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '', citations: [] } }),
    sse.event('content_block_delta', {
      type: 'content_block_delta',
      index: 2,
      delta: {
        type: 'citations_delta',
        citation: {
          type: 'web_search_result_location',
          url: 'https://news.example/b',
          title: 'News B',
          cited_text: 'x',
          encrypted_index: 'EI',
        },
      },
    }),
    sse.event('content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Claude news is out.' } }),
    sse.event('content_block_stop', { type: 'content_block_stop', index: 2 }),
    sse.event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 20, server_tool_use: { web_search_requests: 1 } },
    }),
    sse.event('message_stop', { type: 'message_stop' }),
  ];

  it('native: citations stored, the search shown as a tool card, its blocks sent back unchanged next turn', async () => {
    await rig.ok('PUT', `/api/profiles/${rig.profileId}`, { model: 'nat:m1', web_search: { enabled: true } });
    const sid = await rig.newSession();
    fake.next({ chunks: nativeStream });
    const { end } = await rig.turn(sid, 'what is new');
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const reply = (await rig.session(sid)).messages.at(-1);
    assert.deepEqual(reply.citations, [{ n: 1, kind: 'web', url: 'https://news.example/b', title: 'News B' }]);
    assert.deepEqual(reply.blocks[0], {
      type: 'tool_call',
      call_id: 'srvtoolu_1',
      server: 'web',
      tool: 'web_search',
      arguments: { query: 'claude news' },
    });
    assert.equal(reply.blocks[1].type, 'tool_result');
    assert.match(reply.blocks[1].content, /News A\nURL: https:\/\/news\.example\/a/);
    assert.ok(!JSON.stringify(reply).includes('ENC-A'), 'encrypted content stays out of the API view');
    fake.next({ chunks: nativeStream });
    await rig.turn(sid, 'more');
    const sent = fake.seen.at(-1)!.json;
    const assistant = sent.messages.find((m: { role: string }) => m.role === 'assistant');
    assert.deepEqual(assistant.content[0], {
      type: 'server_tool_use',
      id: 'srvtoolu_1',
      name: 'web_search',
      input: { query: 'claude news' },
    });
    assert.equal(assistant.content[1].type, 'web_search_tool_result');
    assert.equal(assistant.content[1].content[0].encrypted_content, 'ENC-A');
  });

  it('responses: url_citation annotations stored; the search call shown with its query', async () => {
    await rig.ok('PUT', `/api/profiles/${rig.profileId}`, { model: 'resp:m1', web_search: { enabled: true } });
    const sid = await rig.newSession();
    const ev = (type: string, body: Record<string, unknown>) => sse.event(type, { type, ...body });
    const message = {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      content: [
        {
          type: 'output_text',
          text: 'Answer with a source.',
          annotations: [{ type: 'url_citation', url: 'https://r.example/page', title: 'R Page', start_index: 0, end_index: 6 }],
        },
      ],
    };
    fake.next({
      chunks: [
        ev('response.created', { response: { id: 'resp_1' } }),
        ev('response.output_item.added', { output_index: 0, item: { type: 'web_search_call', id: 'ws_1', status: 'in_progress' } }),
        ev('response.output_item.done', {
          output_index: 0,
          item: { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'r things' } },
        }),
        ev('response.output_item.added', { output_index: 1, item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] } }),
        ev('response.output_text.delta', { output_index: 1, item_id: 'msg_1', content_index: 0, delta: 'Answer with a source.' }),
        ev('response.output_text.annotation.added', {
          output_index: 1,
          item_id: 'msg_1',
          annotation: { type: 'url_citation', url: 'https://r.example/page', title: 'R Page', start_index: 0, end_index: 6 },
        }),
        ev('response.output_item.done', { output_index: 1, item: message }),
        ev('response.completed', { response: { id: 'resp_1', usage: { input_tokens: 5, output_tokens: 5 } } }),
      ],
    });
    const { end } = await rig.turn(sid, 'ask');
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const reply = (await rig.session(sid)).messages.at(-1);
    assert.deepEqual(reply.citations, [{ n: 1, kind: 'web', url: 'https://r.example/page', title: 'R Page' }]);
    assert.deepEqual(reply.blocks[0].arguments, { query: 'r things' });
    assert.deepEqual(fake.seen.at(-1)!.json.tools, [{ type: 'web_search' }]);
  });
});
