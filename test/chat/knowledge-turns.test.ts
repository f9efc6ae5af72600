import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay, type RecordedRequest } from '../helpers/recording-relay.js';
import { ChatRig, model } from './chat-harness.js';
import { KEY, PROVIDER_HANDLERS } from '../web/provider-mocks.js';
import { PageServer } from '../web/web-servers.js';

// Knowledge bases in chat turns against the real backend and its real knowledge store (lexical
// KBs: no embedding server needed), with the raw provider requests seen through a recording relay.

/** Paragraphs long enough that the handbook never fits in a quarter of a 1,000-token window. */
const FILLER = Array.from(
  { length: 12 },
  (_, i) => `Section ${i + 1} describes routine maintenance of pumps, filters and seals in plain words for the crew.`,
).join('\n\n');
const GUIDE = `# Valves\n\n## AURA-7\n\nThe AURA-7 valve opens at 7.3 bar of pressure and closes below 6 bar.\n\n${FILLER}\n`;
const NOTE = 'The valve was replaced in May by Dana Whitfield.';

function userText(req: RecordedRequest): string {
  const users = (req.json.messages as any[]).filter((m) => m.role === 'user');
  const last = users.at(-1);
  return typeof last.content === 'string' ? last.content : last.content.map((p: any) => p.text ?? '').join('\n');
}

describe('knowledge bases in chat turns (compat models, real knowledge store)', () => {
  let mock: Aimock;
  let relay: RecordingRelay;
  let rig: ChatRig;
  let handbook: string;
  let guideId: string;
  let notes: string;
  let brave: PageServer;

  const completions = (from: number) => relay.requests.slice(from).filter((r) => r.path.endsWith('/chat/completions'));

  async function upload(kb: string, name: string, text: string): Promise<string> {
    const res = await fetch(`${rig.proc.url}/api/knowledge/${kb}/sources`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${rig.credential}`,
        'x-filename': encodeURIComponent(name),
        'content-type': 'application/octet-stream',
      },
      body: new TextEncoder().encode(text),
    });
    const body = (await res.json()) as any;
    assert.equal(res.status, 201, JSON.stringify(body));
    return body.id as string;
  }

  /** Polls the source's real state until it is ready (a failure is reported with its reason). */
  async function ready(kb: string, sid: string): Promise<void> {
    for (;;) {
      const { sources } = await rig.ok('GET', `/api/knowledge/${kb}/sources`);
      const s = (sources as any[]).find((x) => x.id === sid);
      if (s?.state === 'ready') return;
      assert.notEqual(s?.state, 'failed', JSON.stringify(s));
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Sends `body` as a message and waits for the turn's end. */
  async function turn(sid: string, body: Record<string, unknown>): Promise<{ end: any; frames: any[] }> {
    const watch = await rig.watch();
    try {
      const { turn_id } = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, body);
      const end = await watch.end(turn_id);
      return { end, frames: watch.frames(turn_id) };
    } finally {
      watch.close();
    }
  }

  async function sessionWith(modelId: string, provider = 'prov'): Promise<string> {
    const sid = await rig.newSession();
    await rig.ok('PATCH', rig.sessionsPath(sid), { model: `${provider}:${modelId}` });
    return sid;
  }

  before(async () => {
    brave = await PageServer.start(PROVIDER_HANDLERS.brave);
    mock = await Aimock.start([
      {
        match: { userMessage: 'Q-BOTH', hasToolResult: false },
        response: {
          toolCalls: [
            { name: 'web_search', arguments: '{"query":"valve news","max_results":2}' },
            { name: 'knowledge_search', arguments: '{"query":"AURA-7 valve"}' },
          ],
        },
      },
      { match: { userMessage: 'Q-BOTH', hasToolResult: true }, response: { content: 'News in [2]; the manual says 7.3 bar [3].' } },
      {
        match: { userMessage: 'Q-TOOLS', hasToolResult: false },
        response: { toolCalls: [{ name: 'knowledge_search', arguments: '{"query":"AURA-7 valve"}' }] },
      },
      { match: { userMessage: 'Q-TOOLS', hasToolResult: true }, response: { content: 'It opens at 7.3 bar [1].' } },
      { match: { userMessage: 'Q-PASSAGES' }, response: { content: 'At 7.3 bar [1], per the guide.' } },
      { match: { userMessage: 'Q-WHOLE' }, response: { content: 'Dana replaced it [2]; the valve opens at 7.3 bar [1].' } },
      { match: { userMessage: 'Q-PLAIN' }, response: { content: 'No documents needed.' } },
    ]);
    relay = await RecordingRelay.start(mock.url);
    rig = await ChatRig.start([
      {
        id: 'prov',
        type: 'compat',
        base_url: `${relay.url}/v1`,
        models: [
          model('tools', { context_window: 1000 }),
          model('plain', { context_window: 1000, supports_tools: false }),
          model('wide', { context_window: 200_000 }),
        ],
      },
      {
        id: 'nat',
        type: 'native',
        base_url: relay.url,
        models: [model('tools', { context_window: 1000 }), model('plain', { context_window: 1000, supports_tools: false })],
      },
    ]);
    handbook = (await rig.ok('POST', '/api/knowledge', { name: 'Handbook', description: 'Valve manuals' })).id;
    notes = (await rig.ok('POST', '/api/knowledge', { name: 'Notes' })).id;
    guideId = await upload(handbook, 'guide.md', GUIDE);
    await ready(handbook, guideId);
    await ready(notes, await upload(notes, 'may.txt', NOTE));
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await relay?.stop();
    await mock?.stop();
    await brave?.stop();
  });

  it('workspace knowledge_bases: each must exist (400 naming the position), and are saved and shown', async () => {
    const bad = await rig.call('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [handbook, 'kb-missing'] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'knowledge_bases[1]');
    assert.match(bad.body.error.message, /no knowledge base kb-missing/);
    const notList = await rig.call('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: 'x' });
    assert.equal(notList.status, 400);
    assert.match(JSON.stringify(notList.body), /knowledge_bases must be a list of knowledge base ids/);
    const saved = await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [handbook, handbook] });
    assert.deepEqual(saved.knowledge_bases, [handbook]);
    assert.deepEqual((await rig.ok('GET', `/api/workspaces/${rig.workspaceId}`)).knowledge_bases, [handbook]);
  });

  it('a tools model with a workspace KB: the tools are offered, the search result is numbered, the cited passage is stored', async () => {
    await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [handbook] });
    const sid = await sessionWith('tools');
    const from = relay.requests.length;
    const { end, frames } = await turn(sid, { content: 'Q-TOOLS: when does it open?' });
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const [first, second] = completions(from);
    assert.deepEqual(
      first!.json.tools.map((t: any) => t.function.name),
      ['knowledge_search', 'knowledge_read'],
    );
    const system = first!.json.messages[0];
    assert.equal(system.role, 'system');
    assert.match(system.content, new RegExp(`Handbook \\(id ${handbook}\\): Valve manuals`));
    assert.doesNotMatch(userText(first!), /<knowledge>/, 'a tools model gets no context block');
    const call = frames.find((f) => f.type === 'turn.tool_call');
    assert.deepEqual([call.server, call.tool, call.arguments], ['knowledge', 'knowledge_search', { query: 'AURA-7 valve' }]);
    const toolMessage = (second!.json.messages as any[]).find((m) => m.role === 'tool');
    assert.match(toolMessage.content, /^Passages for "AURA-7 valve" in Handbook:/);
    assert.match(toolMessage.content, /\[1\] guide\.md · Valves › AURA-7\nsource_id: [^\n]+\n[^]*The AURA-7 valve opens at 7\.3 bar/);
    const reply = (await rig.session(sid)).messages.at(-1);
    assert.equal(reply.citations.length, 1);
    const [c] = reply.citations;
    assert.deepEqual([c.n, c.kind, c.kb_id, c.name, c.location.heading], [1, 'knowledge', handbook, 'guide.md', ['Valves', 'AURA-7']]);
    assert.ok(c.source_id && c.chunk_id, JSON.stringify(c));
  });

  it('a model without tools with a message KB: the top passages in a context block; regenerate uses the same KB', async () => {
    await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [] });
    const sid = await sessionWith('plain');
    const refused = await rig.call('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'Q-PASSAGES', knowledge_bases: ['kb-nope'] });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.field, 'knowledge_bases[0]');
    let from = relay.requests.length;
    const { end } = await turn(sid, { content: 'Q-PASSAGES: when does the AURA-7 valve open?', knowledge_bases: [handbook] });
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const [sent] = completions(from);
    assert.equal(sent!.json.tools, undefined, 'no tools for a model without supports_tools');
    const text = userText(sent!);
    assert.match(
      text,
      /^<knowledge>\n\nPassages retrieved for the user's message from the knowledge bases attached to this conversation \(Handbook\)\. Cite what you use inline as \[n\]/,
    );
    assert.match(text, /\[1\] guide\.md · Valves › AURA-7\n(## AURA-7\n\n)?The AURA-7 valve opens at 7\.3 bar/);
    assert.match(text, /<\/knowledge>\n*Q-PASSAGES: when does the AURA-7 valve open\?$/);
    const session = await rig.session(sid);
    const [user, reply] = session.messages.slice(-2);
    assert.deepEqual(user.knowledge_bases, [handbook]);
    assert.deepEqual([reply.citations[0].n, reply.citations[0].kb_id], [1, handbook]);
    // Another turn without a KB in the same session sends no knowledge.
    from = relay.requests.length;
    await turn(sid, { content: 'Q-PLAIN' });
    assert.doesNotMatch(userText(completions(from)[0]!), /<knowledge>/);
    // Regenerate answers the stored message again, with its KB.
    from = relay.requests.length;
    const watch = await rig.watch();
    try {
      const { turn_id } = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages/${reply.id}/regenerate`, {});
      assert.equal((await watch.end(turn_id)).type, 'turn.completed');
    } finally {
      watch.close();
    }
    assert.match(userText(completions(from)[0]!), /\[1\] guide\.md · Valves › AURA-7\n(## AURA-7\n\n)?The AURA-7 valve opens/);
  });

  it('whole text when the KBs fit in a quarter of the window; citations kept by export (JSON, Markdown) and fork', async () => {
    const sid = await sessionWith('wide');
    const from = relay.requests.length;
    const { end } = await turn(sid, { content: 'Q-WHOLE: who replaced it?', knowledge_bases: [handbook, notes] });
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const [sent] = completions(from);
    assert.deepEqual(
      (sent!.json.tools ?? []).map((t: any) => t.function.name).filter((n: string) => n.startsWith('knowledge')),
      [],
      'the whole text needs no knowledge tools',
    );
    const text = userText(sent!);
    assert.match(text, /The full text of the knowledge bases attached to this conversation \(Handbook, Notes\)/);
    assert.match(text, /\[1\] guide\.md\n# Valves[^]*Section 12 describes/);
    assert.match(text, new RegExp(`\\[2\\] may\\.txt\\n${NOTE.replace(/\./g, '\\.')}`));
    const reply = (await rig.session(sid)).messages.at(-1);
    assert.deepEqual(
      reply.citations.map((c: any) => [c.n, c.kind, c.kb_id, c.name]),
      [
        [1, 'knowledge', handbook, 'guide.md'],
        [2, 'knowledge', notes, 'may.txt'],
      ],
    );
    assert.ok(
      reply.citations.every((c: any) => c.chunk_id && c.source_id),
      'a whole source resolves to its first chunk',
    );

    const json = await rig.ok('GET', `${rig.sessionsPath(sid)}/export?format=json`);
    const exported = (json.messages as any[]).find((m) => m.id === reply.id);
    assert.deepEqual(exported.citations, reply.citations);
    const md = await rig.call('GET', `${rig.sessionsPath(sid)}/export?format=md`);
    assert.equal(md.status, 200);
    const mdText = typeof md.body === 'string' ? md.body : JSON.stringify(md.body);
    assert.match(mdText, new RegExp(`\\*\\*Sources\\*\\*\\n\\n1\\. guide\\.md[^\\n]*\\(knowledge base ${handbook}, source `));
    assert.match(mdText, /\n2\. may\.txt/);
    const fork = await rig.ok('POST', `${rig.sessionsPath(sid)}/fork`, { message_id: reply.id });
    const forked = (await rig.session(fork.id)).messages.at(-1);
    assert.deepEqual(forked.citations, reply.citations);
    // The JSON export imported again keeps them too, and the user message's knowledge bases.
    const imported = await rig.ok('POST', `${rig.sessionsPath()}/import`, json);
    const back = (await rig.session(imported.sessions[0].id)).messages;
    assert.deepEqual(back.at(-1).citations, reply.citations);
    assert.deepEqual(back.at(-2).knowledge_bases, [handbook, notes]);
  });

  it('a deleted KB is skipped at turn time: the workspace KB gone, the turn runs without knowledge', async () => {
    const doomed = (await rig.ok('POST', '/api/knowledge', { name: 'Doomed' })).id;
    await ready(doomed, await upload(doomed, 'old.txt', 'AURA-7 history that nobody needs.'));
    await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [doomed] });
    await rig.ok('DELETE', `/api/knowledge/${doomed}`);
    const sid = await sessionWith('tools');
    const from = relay.requests.length;
    const { end } = await turn(sid, { content: 'Q-PLAIN after the delete' });
    assert.equal(end.type, 'turn.completed', JSON.stringify(end));
    const [sent] = completions(from);
    assert.equal(sent!.json.tools, undefined, 'no knowledge tools for a deleted KB');
    assert.doesNotMatch(userText(sent!), /<knowledge>/);
    assert.doesNotMatch(sent!.json.messages[0].content, /Knowledge bases are attached/);
    await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [] });
  });

  it('over the native protocol: knowledge tools with input_schema, the numbered tool_result, and the context block as the first text block', async () => {
    await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [handbook] });
    try {
      const tools = await sessionWith('tools', 'nat');
      let from = relay.requests.length;
      const { end } = await turn(tools, { content: 'Q-TOOLS over native' });
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      const [first, second] = relay.requests.slice(from).filter((r) => r.path.endsWith('/messages'));
      assert.deepEqual(
        first!.json.tools.map((t: any) => [t.name, Object.keys(t.input_schema.properties)]),
        [
          ['knowledge_search', ['query', 'knowledge_base']],
          ['knowledge_read', ['source_id', 'from', 'to']],
        ],
      );
      assert.match(JSON.stringify(first!.json.system), /Knowledge bases are attached to this conversation/);
      const results = (second!.json.messages as any[]).flatMap((m) =>
        Array.isArray(m.content) ? m.content.filter((b: any) => b.type === 'tool_result') : [],
      );
      assert.equal(results.length, 1);
      const content = typeof results[0].content === 'string' ? results[0].content : results[0].content.map((b: any) => b.text).join('');
      assert.match(content, /\[1\] guide\.md · Valves › AURA-7\nsource_id: /);
      assert.equal((await rig.session(tools)).messages.at(-1).citations[0].kind, 'knowledge');

      const plain = await sessionWith('plain', 'nat');
      from = relay.requests.length;
      await turn(plain, { content: 'Q-PASSAGES over native: the AURA-7 valve' });
      const [sent] = relay.requests.slice(from).filter((r) => r.path.endsWith('/messages'));
      assert.equal(sent!.json.tools, undefined);
      const user = (sent!.json.messages as any[]).at(-1);
      assert.equal(user.role, 'user');
      assert.match(user.content[0].text, /^<knowledge>\n\nPassages retrieved[^]*\[1\] guide\.md · Valves › AURA-7/);
      assert.equal(user.content.at(-1).text, 'Q-PASSAGES over native: the AURA-7 valve');
    } finally {
      await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [] });
    }
  });

  it('web search and knowledge in one turn share one numbering: pages [1] [2], the passage [3]', async () => {
    await rig.ok('PUT', '/api/config/web', {
      web_search: { providers: [{ id: 'brave1', type: 'brave', base_url: brave.url, api_key: KEY }], approval: 'auto' },
      web_fetch: { allow_hosts: [] },
    });
    await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [handbook] });
    try {
      const sid = await sessionWith('tools');
      await rig.ok('PATCH', rig.sessionsPath(sid), { web_search: true });
      const from = relay.requests.length;
      const { end, frames } = await turn(sid, { content: 'Q-BOTH: any news on the valve?' });
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      assert.deepEqual(
        completions(from)[0]!.json.tools.map((t: any) => t.function.name),
        ['web_search', 'web_fetch', 'knowledge_search', 'knowledge_read'],
      );
      const results = frames.filter((f) => f.type === 'turn.tool_result').map((f) => f.content as string);
      assert.match(results[0]!, /\[1\] Brave one[^]*\[2\] Brave two/);
      assert.match(results[1]!, /^Passages for "AURA-7 valve" in Handbook:\n\n\[3\] guide\.md/);
      const reply = (await rig.session(sid)).messages.at(-1);
      assert.deepEqual(
        reply.citations.map((c: any) => [c.n, c.kind, c.kind === 'web' ? c.url : c.name]),
        [
          [2, 'web', 'https://brave.example/2'],
          [3, 'knowledge', 'guide.md'],
        ],
      );
    } finally {
      await rig.ok('PUT', `/api/workspaces/${rig.workspaceId}`, { knowledge_bases: [] });
    }
  });

  it('knowledge_read returns a span of a source numbered by chunk; a source outside the KBs in play is a tool error', async () => {
    // A provider of its own: its fixtures name the source id, known only now.
    const reader = await Aimock.start([
      {
        match: { userMessage: 'Q-READ', hasToolResult: false },
        response: {
          toolCalls: [
            { name: 'knowledge_read', arguments: JSON.stringify({ source_id: guideId, from: 0, to: 0 }) },
            { name: 'knowledge_read', arguments: '{"source_id":"src-elsewhere"}' },
          ],
        },
      },
      { match: { userMessage: 'Q-READ', hasToolResult: true }, response: { content: 'The guide begins with valves [1].' } },
    ]);
    try {
      await rig.ok('POST', '/api/config/providers', {
        id: 'rd',
        name: 'rd',
        type: 'compat',
        base_url: `${reader.url}/v1`,
        api_key: 'sk-test',
        models: [model('tools', { context_window: 1000 })],
      });
      const sid = await sessionWith('tools', 'rd');
      const { end, frames } = await turn(sid, { content: 'Q-READ: read the guide', knowledge_bases: [handbook] });
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      const [read, missing] = frames.filter((f) => f.type === 'turn.tool_result');
      assert.equal(read.ok, true, read.content);
      assert.match(
        read.content,
        new RegExp(`^guide\\.md \\(source_id ${guideId}\\):\\n\\n\\[1\\] guide\\.md · Valves(?: › AURA-7)? \\(chunk 0\\)\\n`),
      );
      assert.equal(missing.ok, false);
      assert.match(missing.content, /There is no source src-elsewhere in the knowledge bases of this conversation/);
      const reply = (await rig.session(sid)).messages.at(-1);
      assert.deepEqual(
        reply.citations.map((c: any) => [c.n, c.source_id]),
        [[1, guideId]],
      );
    } finally {
      await reader.stop();
    }
  });
});
