import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api } from '../helpers/backend-process.js';
import { Aimock } from '../helpers/aimock.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { ChatRig, model } from './chat-harness.js';
import { CONVERSATIONS, KYOTO } from './fixtures/chatgpt-export.js';
import { rows } from './request-rows.js';

const texts = (session: any) => session.messages.map((m: any) => m.blocks.map((b: any) => b.text).join(''));

describe('export and import', () => {
  let mock: Aimock;
  let relay: RecordingRelay;
  let rig: ChatRig;
  before(async () => {
    mock = await Aimock.start([
      { match: { userMessage: 'alpha' }, response: { content: 'Alpha answer.', reasoning: 'Thinking about alpha.' } },
      { match: { userMessage: 'beta' }, response: { content: 'Beta answer with ``` fences.' } },
      { match: { userMessage: '' }, response: { content: 'Carry on.' } },
    ]);
    relay = await RecordingRelay.start(mock.url);
    rig = await ChatRig.start([{ id: 'p', type: 'compat', base_url: `${relay.url}/v1`, models: [model('m1')] }]);
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await relay?.stop();
    await mock?.stop();
  });

  const importPath = (dry = false) => `${rig.sessionsPath()}/import${dry ? '?dry_run=1' : ''}`;
  const upload = (raw: string, dry = false) =>
    api(rig.proc.url, 'POST', importPath(dry), {
      credential: rig.credential,
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
  const sessionIds = async () => ((await rig.ok('GET', rig.sessionsPath())).sessions as any[]).map((s) => s.id).sort();
  const sessionsDir = () => path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions');

  it('our JSON export imports back as the same tree, and the Markdown export holds the shown branch', async () => {
    const sid = await rig.newSession('Round trip');
    await rig.turn(sid, 'alpha one');
    await rig.turn(sid, 'beta two');
    const shown = await rig.session(sid);
    // An edited branch and a regenerated reply, so the tree has alternatives at two levels.
    const edit = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'beta edited', parent_id: shown.messages[1].id });
    await (await rig.watch()).end(edit.turn_id);
    const regen = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages/${shown.messages[1].id}/regenerate`, {});
    await (await rig.watch()).end(regen.turn_id);

    const exported = await rig.ok('GET', `${rig.sessionsPath(sid)}/export?format=json`);
    assert.equal(exported.format, 'service-session');
    assert.equal(exported.version, 1);
    assert.equal(exported.messages.length, 7);
    assert.deepEqual(exported.attachments, []);
    const imported = await upload(JSON.stringify(exported));
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    assert.deepEqual(imported.body.skipped, []);
    const [copy] = imported.body.sessions;
    assert.notEqual(copy.id, sid);
    assert.equal(copy.message_count, 7);
    assert.equal(copy.branches, 3);
    const again = await rig.ok('GET', `${rig.sessionsPath(copy.id)}/export?format=json`);
    assert.deepEqual(again.messages, exported.messages, 'the same messages, ids, parents and order');
    assert.equal(again.session.active_leaf, exported.session.active_leaf);
    assert.equal(again.session.title, 'Round trip');
    assert.deepEqual(texts(await rig.session(copy.id)), texts(await rig.session(sid)));

    const md = await api(rig.proc.url, 'GET', `${rig.sessionsPath(sid)}/export?format=md`, { credential: rig.credential });
    assert.match(md.headers.get('content-type') ?? '', /text\/markdown/);
    const text = md.body as string;
    assert.match(text, /^# Round trip\n/);
    assert.match(text, /- Model: p:m1/);
    assert.match(text, /## You\n\nalpha one/);
    assert.match(text, /## Assistant \(p:m1\)\n\n<details>\n<summary>Thinking<\/summary>\n\nThinking about alpha\./);
    assert.ok(!text.includes('beta two'), 'only the shown branch');
    assert.ok(!text.includes('beta edited'), 'the regenerated reply sits under the first question');
  });

  it('previews a ChatGPT export, then imports its whole tree with titles, times, branches and the shown branch', async () => {
    const beforeIds = await sessionIds();
    const raw = JSON.stringify(CONVERSATIONS);
    const preview = await upload(raw, true);
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.equal(preview.body.dry_run, true);
    assert.equal(preview.body.format, 'chatgpt');
    assert.deepEqual(
      preview.body.sessions.map((s: any) => [s.title, s.message_count, s.branches]),
      [
        ['Trip to Kyoto', 8, 3],
        ['Imported chat', 3, 1],
      ],
    );
    const reasons = preview.body.skipped.map((s: any) => `${s.title}: ${s.reason}`).join('\n');
    const kyotoNote = preview.body.skipped.find((s: any) => s.title === 'Trip to Kyoto').reason;
    for (const part of [/1 × system messages/, /1 × tool messages/, /1 × non-text parts such as images/]) assert.match(kyotoNote, part);
    assert.match(reasons, /Nothing here: no user or assistant text/);
    assert.match(reasons, /Imported chat: left out: .*tool messages/);
    assert.deepEqual(await sessionIds(), beforeIds, 'the preview writes nothing');

    const done = await upload(raw);
    assert.equal(done.status, 201);
    assert.equal(done.body.sessions.length, 2);
    const kyoto = done.body.sessions[0];
    const session = await rig.session(kyoto.id);
    assert.equal(session.title, 'Trip to Kyoto');
    assert.equal(session.created_at, new Date(Math.round(KYOTO.create_time * 1000)).toISOString());
    assert.deepEqual(texts(session), [
      'Plan 3 days in Kyoto',
      'Start early at Kiyomizu-dera, then Gion at dusk.',
      '[image]\nWhat about food near this temple?',
      '```python\nprint(sum([1200, 800, 1500]))\n```',
      'Budget about 3,500 yen a day for food; try Nishiki Market.',
    ]);
    assert.deepEqual(session.messages[0].siblings, { index: 1, count: 2 }, 'the edited question is an alternative');
    assert.deepEqual(session.messages[1].siblings, { index: 2, count: 2 }, 'the regenerated answer too');
    assert.equal(session.messages[1].model, 'chatgpt:gpt-4o');
    assert.equal(session.messages[0].created_at, new Date(Math.round((KYOTO.create_time + 10) * 1000)).toISOString());
    const other = await rig.ok('PUT', `${rig.sessionsPath(kyoto.id)}/active`, {
      message_id: (await rig.ok('GET', `${rig.sessionsPath(kyoto.id)}/messages/${session.messages[0].id}/siblings`)).messages[1].id,
    });
    assert.deepEqual(texts(other), ['Plan 4 days in Kyoto', 'With four days, add a day trip to Nara.']);

    const thoughts = await rig.session(done.body.sessions[1].id);
    assert.deepEqual(
      thoughts.messages.map((m: any) => m.blocks.map((b: any) => b.type).join()),
      ['text', 'thinking', 'text'],
    );
    assert.match(thoughts.messages[1].blocks[0].text, /7 × 11 × 13/);

    // An imported chat goes on like any other: the request holds its shown branch only.
    relay.clear();
    await rig.turn(kyoto.id, 'and on day four?');
    assert.deepEqual(rows('compat', relay.last('/chat/completions').json), [
      ['user', 'Plan 4 days in Kyoto'],
      ['assistant', 'With four days, add a day trip to Nara.'],
      ['user', 'and on day four?'],
    ]);
  });

  it('refuses broken files with a 400 naming the first offending path, and creates nothing', async () => {
    const beforeIds = await sessionIds();
    const bad = structuredClone(CONVERSATIONS) as any[];
    bad.push({ title: 'broken', mapping: { abc: { id: 'abc', parent: null, children: [], message: 'oops' } } });
    const cases: [string, string, string][] = [
      [JSON.stringify(bad), '[3].mapping.abc.message', 'a bad node after three good conversations'],
      [
        JSON.stringify([{ title: 'x', mapping: { a: { parent: 'nowhere', children: [] } } }]),
        '[0].mapping.a.parent',
        'a parent that is not there',
      ],
      [
        JSON.stringify([{ mapping: { a: { parent: 'b', children: [] }, b: { parent: 'a', children: [] } } }]),
        '[0].mapping.a.parent',
        'a cycle',
      ],
      [
        JSON.stringify([{ title: 'x', mapping: { a: { parent: null, children: ['zz'] } } }]),
        '[0].mapping.a.children[0]',
        'a child that is not there',
      ],
      [JSON.stringify(CONVERSATIONS).slice(0, 900), '[0]', 'a truncated file'],
      [JSON.stringify([1, 2]), '[0]', 'not conversations'],
      [
        JSON.stringify({
          format: 'service-session',
          version: 1,
          session: { title: 't' },
          messages: [{ id: 'a', role: 'user', created_at: 'x', parent_id: 'b', blocks: [] }],
        }),
        'messages[0].parent_id',
        'our format, a parent that comes later',
      ],
      [JSON.stringify({ format: 'other' }), 'format', 'an unknown object'],
    ];
    for (const [raw, field, what] of cases) {
      const res = await upload(raw);
      assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'validation_failed', what);
      assert.equal(res.body.error.field, field, `${what}: ${res.body.error.message}`);
    }
    for (const raw of ['hello', '', '   ']) {
      const res = await upload(raw);
      assert.equal(res.status, 400, raw);
    }
    assert.deepEqual(await sessionIds(), beforeIds, 'nothing half-imported');
    assert.deepEqual(
      readdirSync(sessionsDir()).filter((n) => n.startsWith('.')),
      [],
      'no staging folder or upload left behind',
    );
  });
});
