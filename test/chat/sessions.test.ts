import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { ChatRig, model } from './chat-harness.js';

/** events.jsonl of n user/assistant pairs, written directly (what many earlier turns leave). */
function history(n: number): string {
  const lines: string[] = [];
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < n; i++) {
    const at = new Date(t0 + i * 1000).toISOString();
    lines.push(
      JSON.stringify({
        t: 'message',
        m: { id: `m-u${String(i).padStart(5, '0')}`, role: 'user', created_at: at, blocks: [{ type: 'text', text: `question ${i}` }] },
      }),
    );
    lines.push(
      JSON.stringify({
        t: 'message',
        m: { id: `m-a${String(i).padStart(5, '0')}`, role: 'assistant', created_at: at, blocks: [{ type: 'text', text: `answer ${i}` }] },
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

describe('sessions: create, list, page, rename, delete, search', () => {
  let mock: Aimock;
  let rig: ChatRig;
  before(async () => {
    mock = await Aimock.start([{ match: { userMessage: 'zebra' }, response: { content: 'Zebras have stripes; the quagga was one.' } }]);
    rig = await ChatRig.start([{ id: 'c', type: 'compat', base_url: `${mock.url}/v1`, models: [model('m1')] }]);
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await mock?.stop();
  });

  it('creates sessions with files on disk and lists them newest first', async () => {
    const a = await rig.ok('POST', rig.sessionsPath(), { title: 'Alpha' });
    assert.equal(a.title, 'Alpha');
    assert.equal(a.message_count, 0);
    assert.deepEqual(a.usage, { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 });
    const dir = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', a.id);
    assert.ok(existsSync(path.join(dir, 'session.json')));
    assert.ok(existsSync(path.join(dir, 'events.jsonl')));
    const b = await rig.ok('POST', rig.sessionsPath(), {});
    assert.equal(b.title, 'New chat');
    const list = (await rig.ok('GET', rig.sessionsPath())).sessions;
    assert.deepEqual(
      list.slice(0, 2).map((s: any) => s.id),
      [b.id, a.id],
    );
    // A turn moves its session to the top.
    await rig.turn(a.id, 'zebra facts please');
    const after = (await rig.ok('GET', rig.sessionsPath())).sessions;
    assert.equal(after[0].id, a.id);
    assert.equal(after[0].message_count, 2);
    assert.equal(after[0].title, 'Alpha', 'a named session keeps its title');
  });

  it('validates input and names the field', async () => {
    const bad = await rig.call('POST', rig.sessionsPath(), { title: 42 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'title');
    const sid = await rig.newSession();
    const empty = await rig.call('POST', `${rig.sessionsPath(sid)}/messages`, { content: '  ' });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.field, 'content');
    assert.equal((await rig.call('GET', rig.sessionsPath('s-missing'))).status, 404);
    assert.equal((await rig.call('GET', rig.sessionsPath('..%2F..'))).status, 404);
    assert.equal((await rig.call('GET', `/api/workspaces/ws-nope/sessions`)).status, 404);
    const limit = await rig.call('GET', `${rig.sessionsPath(sid)}?limit=0`);
    assert.equal(limit.body.error.field, 'limit');
  });

  it('answers 400 no_model naming what is missing', async () => {
    await rig.ok('POST', '/api/config/providers', { id: 'gone', name: 'Gone', type: 'compat', base_url: mock.url, models: [model('m1')] });
    await rig.ok('PUT', '/api/profiles/ghost', { model: 'gone:m1' });
    const ws = await rig.ok('POST', '/api/workspaces', { name: 'ghostly', profile_id: 'ghost' });
    await rig.ok('DELETE', '/api/config/providers/gone');
    const s = await rig.ok('POST', `/api/workspaces/${ws.id}/sessions`, {});
    const res = await rig.call('POST', `/api/workspaces/${ws.id}/sessions/${s.id}/messages`, { content: 'hi' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'no_model');
    assert.match(res.body.error.message, /provider gone/);
  });

  it('renames and deletes to trash/', async () => {
    const sid = await rig.newSession('Old');
    const renamed = await rig.ok('PATCH', rig.sessionsPath(sid), { title: 'New name' });
    assert.equal(renamed.title, 'New name');
    assert.equal((await rig.session(sid)).title, 'New name');
    const del = await rig.ok('DELETE', rig.sessionsPath(sid));
    assert.match(del.trashed_to, /^trash\//);
    assert.ok(existsSync(path.join(rig.proc.dataDir, del.trashed_to, 'session.json')));
    assert.equal((await rig.call('GET', rig.sessionsPath(sid))).status, 404);
  });

  it('opens a 10,000-message session at its newest page and pages back with before', async () => {
    const sid = await rig.newSession('Long');
    const dir = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', sid);
    writeFileSync(path.join(dir, 'events.jsonl'), history(5000));
    const first = await rig.session(sid);
    assert.equal(first.messages.length, 50);
    assert.equal(first.has_more, true);
    assert.equal(first.messages[0].id, 'm-u04975');
    assert.equal(first.messages.at(-1).id, 'm-a04999');
    const back = await rig.session(sid, `?before=${first.messages[0].id}&limit=10`);
    assert.deepEqual(
      back.messages.map((m: any) => m.id),
      ['m-u04970', 'm-a04970', 'm-u04971', 'm-a04971', 'm-u04972', 'm-a04972', 'm-u04973', 'm-a04973', 'm-u04974', 'm-a04974'],
    );
    const start = await rig.session(sid, `?before=m-a00001&limit=10`);
    assert.deepEqual(
      start.messages.map((m: any) => m.id),
      ['m-u00000', 'm-a00000', 'm-u00001'],
    );
    assert.equal(start.has_more, false);
    const unknown = await rig.call('GET', `${rig.sessionsPath(sid)}?before=m-nope`);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.field, 'before');
  });

  it('searches all sessions case-insensitively with snippets', async () => {
    const res = await rig.ok('GET', `/api/search?q=${encodeURIComponent('QUAGGA')}`);
    assert.equal(res.hits.length, 1);
    const [hit] = res.hits;
    assert.equal(hit.workspace_id, rig.workspaceId);
    assert.match(hit.snippet, /quagga/);
    const session = await rig.session(hit.session_id);
    assert.ok(session.messages.some((m: any) => m.id === hit.message_id));
    const long = await rig.ok('GET', `/api/search?q=question%204999`);
    assert.equal(long.hits[0].message_id, 'm-u04999');
    const none = await rig.ok('GET', '/api/search?q=nothing-matches-this');
    assert.deepEqual(none.hits, []);
    assert.equal((await rig.call('GET', '/api/search?q=')).status, 400);
    // Nothing of a trashed session is found.
    const trashed = readdirSync(path.join(rig.proc.dataDir, 'trash'));
    assert.ok(trashed.length >= 1);
  });
});
