import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { messageId, writeSession } from '../helpers/history-gen.js';
import { ScriptedSse } from '../helpers/scripted-sse.js';
import { ChatRig, model } from './chat-harness.js';
import { compat } from './scripts.js';

/** Sixteen distinct words, all in one message. */
const TANGO = Array.from({ length: 16 }, (_, i) => `tango${String(i + 1).padStart(2, '0')}`);

describe('search: a persistent full-text index of the logs', () => {
  let fake: ScriptedSse;
  let rig: ChatRig;
  let other = '';
  const sessionsOf = (ws: string) => path.join(rig.proc.dataDir, 'workspaces', ws, 'sessions');
  const search = (query: string) => rig.ok('GET', `/api/search?${query}`);
  /** The index catches up in the background after a start: wait until it says so. */
  async function settled(query: string): Promise<any> {
    for (let i = 0; ; i++) {
      const r = await search(query);
      if (!r.indexing || i > 100) return r;
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  before(async () => {
    fake = await ScriptedSse.start();
    rig = await ChatRig.start([{ id: 'c', type: 'compat', base_url: `${fake.url}/v1`, models: [model('m1')] }]);
    other = (await rig.ok('POST', '/api/workspaces', { name: 'other', profile_id: rig.profileId })).id;
    // 45 messages with "zebrafish"; one says it five times; 3 more in another workspace; one in Chinese.
    await writeSession(path.join(sessionsOf(rig.workspaceId), 's-a'), 's-a', {
      messages: 60,
      extra: (i) => (i === 17 ? 'zebrafish zebrafish zebrafish zebrafish zebrafish' : i < 45 ? 'a zebrafish' : '你好世界的故事'),
    });
    await writeSession(path.join(sessionsOf(other), 's-b'), 's-b', { messages: 3, extra: () => 'zebrafish' });
    await writeSession(path.join(sessionsOf(other), 's-c'), 's-c', { messages: 1, extra: () => TANGO.join(' ') });
    // More matches than are ranked (the 2,000 newest): message 2090 says it three times.
    await writeSession(path.join(sessionsOf(other), 's-d'), 's-d', {
      messages: 2100,
      textChars: 40,
      extra: (i) => (i === 2090 ? 'quokka quokka quokka' : 'quokka'),
    });
    await rig.proc.stop();
    await rig.restart();
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await fake?.stop();
  });

  it('finds what was in the logs at start, ranked, paged without overlap, filtered by workspace', async () => {
    const first = await settled('q=zebrafish&limit=20');
    assert.equal(first.hits.length, 20);
    assert.equal(first.has_more, true);
    assert.equal(first.hits[0].message_id, messageId(17), 'the message saying it five times ranks first');
    assert.match(first.hits[0].snippet, /zebrafish/);
    const all = [...first.hits];
    for (let offset = 20; ; offset += 20) {
      const page = await search(`q=zebrafish&limit=20&offset=${offset}`);
      all.push(...page.hits);
      if (!page.has_more) break;
    }
    assert.equal(all.length, 48);
    assert.equal(new Set(all.map((h) => `${h.session_id}/${h.message_id}`)).size, 48, 'no hit twice');
    const filtered = await search(`q=zebrafish&limit=100&workspace_id=${other}`);
    assert.deepEqual(filtered.hits.map((h: any) => h.message_id).sort(), [0, 1, 2].map(messageId));
    assert.equal((await rig.call('GET', '/api/search?q=zebrafish&limit=0')).body.error.field, 'limit');
    assert.equal((await rig.call('GET', '/api/search?q=zebrafish&offset=-1')).body.error.field, 'offset');
    assert.equal((await rig.call('GET', '/api/search?q=zebrafish&workspace_id=nope')).status, 404);
  });

  it('a query matching more messages than are ranked pages through every one of them once', async () => {
    const seen = new Set<string>();
    let first: any;
    for (let offset = 0; ; offset += 100) {
      const page = await settled(`q=quokka&limit=100&offset=${offset}`);
      first ??= page.hits[0];
      for (const h of page.hits) seen.add(h.message_id);
      if (page.has_more) assert.equal(page.hits.length, 100);
      if (!page.has_more) break;
    }
    assert.equal(seen.size, 2100, 'every match once, across the ranked ones and the rest');
    assert.equal(first.message_id, messageId(2090), 'the best of the newest matches comes first');
  });

  it('finds Chinese text inside longer runs, and words by their beginning', async () => {
    const zh = await search(`q=${encodeURIComponent('世界')}`);
    assert.equal(zh.hits.length, 15);
    assert.match(zh.hits[0].snippet, /你好世界/);
    assert.equal((await search('q=zebraf')).hits.length, 20);
  });

  it('a query is cut to its first 16 distinct terms (said in the answer); one- and two-letter terms are whole words', async () => {
    await settled('q=zebrafish');
    // 16 distinct terms (a repeat in other letter case counts once), then two more that no message holds.
    const q = [TANGO[0].toUpperCase(), ...TANGO, 'missing17', 'missing18'].join(' ');
    const cut = await search(`q=${encodeURIComponent(q)}`);
    assert.equal(cut.terms.length, 16);
    assert.equal(cut.terms_dropped, 2);
    assert.equal(cut.hits.length, 1, 'the terms past the 16th are not searched');
    const whole = await search(`q=${encodeURIComponent(TANGO.slice(0, 3).join(' '))}`);
    assert.equal(whole.terms_dropped, 0);
    // "ze" is not a prefix of everything starting with it; "zeb" is.
    assert.equal((await search('q=ze')).hits.length, 0);
    assert.equal((await search('q=z')).hits.length, 0);
    assert.ok((await search('q=zeb')).hits.length > 0);
  });

  it('indexes what a turn stores as it is stored; a deleted session is no longer found', async () => {
    const sid = await rig.newSession();
    fake.next({ chunks: compat.reply('The axolotl regrows its limbs.') });
    await rig.turn(sid, 'tell me about the okapi');
    const hits = (await search('q=axolotl')).hits;
    assert.deepEqual([hits.length, hits[0]?.session_id], [1, sid]);
    assert.equal((await search('q=okapi')).hits.length, 1);
    await rig.ok('DELETE', rig.sessionsPath(sid));
    assert.deepEqual((await search('q=axolotl')).hits, []);
  });

  it('rebuilds the index when it is deleted or damaged; no warning reaches the log', async () => {
    const file = path.join(rig.proc.dataDir, 'search-index.sqlite');
    assert.ok(existsSync(file));
    for (const breakIt of [() => rmSync(file), () => writeFileSync(file, 'this is not a database '.repeat(1000))]) {
      await rig.proc.stop();
      for (const s of ['-wal', '-shm']) rmSync(file + s, { force: true });
      breakIt();
      await rig.restart();
      const again = await settled('q=zebrafish&limit=100');
      assert.equal(again.hits.length, 48);
    }
    assert.match(rig.proc.output(), /search: rebuilding search-index\.sqlite/);
    assert.doesNotMatch(rig.proc.output(), /ExperimentalWarning|experimental feature/);
  });
});
