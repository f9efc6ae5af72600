import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { KEY, PROVIDER_HANDLERS } from '../web/provider-mocks.js';
import { PageServer } from '../web/web-servers.js';
import { ChatRig, model } from './chat-harness.js';

// docs/knowledge.md "Knowledge tools and approval": knowledge_search / knowledge_read only read the
// user's own attached KBs, so they never wait for approval, even when the web tools are set to ask.

describe('knowledge tools never ask for approval; web tools set to ask do', () => {
  let mock: Aimock;
  let brave: PageServer;
  let rig: ChatRig;
  let kb: string;

  before(async () => {
    brave = await PageServer.start(PROVIDER_HANDLERS.brave);
    mock = await Aimock.start([
      {
        match: { userMessage: 'Q-ASK', hasToolResult: false },
        response: {
          toolCalls: [
            { name: 'web_search', arguments: '{"query":"otter news","max_results":2}' },
            { name: 'knowledge_search', arguments: '{"query":"otter feeding"}' },
          ],
        },
      },
      { match: { userMessage: 'Q-ASK', hasToolResult: true }, response: { content: 'Fed at noon [1].' } },
    ]);
    rig = await ChatRig.start([
      { id: 'prov', type: 'compat', base_url: `${mock.url}/v1`, models: [model('m1', { context_window: 2000 })] },
    ]);
    await rig.ok('PUT', '/api/config/web', {
      web_search: { providers: [{ id: 'brave1', type: 'brave', base_url: brave.url, api_key: KEY }], approval: 'ask' },
      web_fetch: { allow_hosts: [] },
    });
    kb = (await rig.ok('POST', '/api/knowledge', { name: 'Zoo' })).id;
    // Larger than a quarter of the 2,000-token window: the model gets the tools, not the whole text.
    const note = await rig.ok('POST', `/api/knowledge/${kb}/sources`, {
      kind: 'note',
      title: 'Otters',
      text: 'The otters are fed at noon with fish from the harbour.\n\n' + 'Keepers log every feeding. '.repeat(400),
    });
    for (;;) {
      const { sources } = await rig.ok('GET', `/api/knowledge/${kb}/sources`);
      const s = (sources as any[]).find((x) => x.id === note.id);
      if (s?.state === 'ready') break;
      assert.notEqual(s?.state, 'failed', JSON.stringify(s));
      await new Promise((r) => setTimeout(r, 50));
    }
    await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [kb] });
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await mock?.stop();
    await brave?.stop();
  });

  it('in one step, the web search waits for Allow/Deny and the knowledge search does not', async () => {
    const sid = await rig.newSession();
    await rig.ok('PATCH', rig.sessionsPath(sid), { web_search: true });
    const watch = await rig.watch();
    try {
      const { turn_id } = await rig.send(sid, 'Q-ASK: when are the otters fed?');
      const web = await watch.wait(turn_id, (m) => m.type === 'turn.tool_call' && m.tool === 'web_search');
      assert.equal(web.needs_approval, true);
      const waiting = await rig.session(sid);
      assert.deepEqual(waiting.active_turn.awaiting_approval, [web.call_id], 'only the web call waits');
      await rig.ok('POST', `${rig.sessionsPath(sid)}/turns/${turn_id}/approvals`, { call_id: web.call_id, decision: 'deny' });
      const end = await watch.end(turn_id);
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));

      const frames = watch.frames(turn_id);
      const knowledge = frames.find((f) => f.type === 'turn.tool_call' && f.tool === 'knowledge_search');
      assert.deepEqual([knowledge.server, knowledge.needs_approval], ['knowledge', false]);
      const result = frames.find((f) => f.type === 'turn.tool_result' && f.call_id === knowledge.call_id);
      assert.equal(result.ok, true);
      assert.match(result.content, /fed at noon with fish/);
      const denied = frames.find((f) => f.type === 'turn.tool_result' && f.call_id === web.call_id);
      assert.match(denied.content, /denied/);
      assert.equal(brave.hits.length, 0, 'the denied search never reached the provider');
    } finally {
      watch.close();
    }
  });
});
