import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ChatRig } from './chat-harness.js';

const COUNT = 450;
const sid = (i: number) => `s-gen-${String(i).padStart(4, '0')}`;
/** Pairs of sessions share an updated_at: the order falls back to the id. */
const updated = (i: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 2) * 60_000).toISOString();

function writeMeta(root: string, i: number): void {
  const dir = path.join(root, sid(i));
  mkdirSync(dir, { recursive: true });
  const usage = { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 };
  const meta = { id: sid(i), title: `chat ${i}`, created_at: updated(i), updated_at: updated(i), model: null, message_count: 0, usage };
  writeFileSync(path.join(dir, 'session.json'), JSON.stringify(meta));
  writeFileSync(path.join(dir, 'events.jsonl'), '');
}

describe('session list pages with a cursor', () => {
  let rig: ChatRig;
  let root = '';
  const expected = () =>
    Array.from({ length: COUNT }, (_, i) => i)
      .sort((a, b) => (updated(a) === updated(b) ? b - a : updated(a) < updated(b) ? 1 : -1))
      .map(sid);
  before(async () => {
    rig = await ChatRig.start([]);
    root = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions');
    for (let i = 0; i < COUNT; i++) writeMeta(root, i);
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
  });

  it('without limit the newest 200; pages of 100 through next cover all, newest first, no overlap', async () => {
    const first = await rig.ok('GET', rig.sessionsPath());
    assert.equal(first.sessions.length, 200);
    assert.equal(typeof first.next, 'string');
    assert.deepEqual(
      first.sessions.map((s: any) => s.id),
      expected().slice(0, 200),
    );
    const seen: string[] = [];
    let next: string | null = null;
    do {
      const page: any = await rig.ok('GET', `${rig.sessionsPath()}?limit=100${next ? `&before=${next}` : ''}`);
      seen.push(...page.sessions.map((s: any) => s.id));
      next = page.next;
    } while (next);
    assert.deepEqual(seen, expected());
  });

  it('a session changed while paging moves to the top without repeating in later pages', async () => {
    const p1 = await rig.ok('GET', `${rig.sessionsPath()}?limit=100`);
    // The oldest session is renamed (its place stays), a new one is created (on top).
    const oldest = expected()[COUNT - 1];
    await rig.ok('PATCH', rig.sessionsPath(oldest), { title: 'renamed now' });
    const created = await rig.newSession('brand new');
    const rest: string[] = [];
    let next = p1.next;
    while (next) {
      const page: any = await rig.ok('GET', `${rig.sessionsPath()}?limit=100&before=${next}`);
      rest.push(...page.sessions.map((s: any) => s.id));
      next = page.next;
    }
    const all = [...p1.sessions.map((s: any) => s.id), ...rest];
    assert.equal(new Set(all).size, all.length, 'no session twice');
    const top = (await rig.ok('GET', `${rig.sessionsPath()}?limit=2`)).sessions.map((s: any) => s.id);
    assert.deepEqual(top, [created, expected()[0]]);
    const tail = (await rig.ok('GET', `${rig.sessionsPath()}?limit=500`)).sessions.at(-1);
    assert.deepEqual([tail.id, tail.title], [oldest, 'renamed now']);
  });

  it('a session folder added by hand shows up; bad cursors and limits are 400 naming the field', async () => {
    writeMeta(root, 9999);
    const all = await rig.ok('GET', `${rig.sessionsPath()}?limit=500`);
    assert.ok(all.sessions.some((s: any) => s.id === sid(9999)));
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=501', 'limit'],
      ['?before=%%%', 'before'],
      ['?limit=5&before=bm90IGEgY3Vyc29y', 'before'],
    ]) {
      const res = await rig.call('GET', `${rig.sessionsPath()}${query}`);
      assert.deepEqual([res.status, res.body.error?.field], [400, field], query);
    }
  });
});
