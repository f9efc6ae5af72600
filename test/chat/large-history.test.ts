import assert from 'node:assert/strict';
import { closeSync, openSync, appendFileSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { messageId, writeSession } from '../helpers/history-gen.js';
import { ScriptedSse } from '../helpers/scripted-sse.js';
import { ChatRig, model } from './chat-harness.js';
import { compat } from './scripts.js';

const MESSAGES = 20_000;

describe('history at any size: the offset index', () => {
  let fake: ScriptedSse;
  let rig: ChatRig;
  let dir = '';
  const sid = 's-big';
  const ids = (page: any) => page.messages.map((m: any) => m.id);
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => messageId(from + i));

  before(async () => {
    fake = await ScriptedSse.start();
    rig = await ChatRig.start(
      [{ id: 'c', type: 'compat', base_url: `${fake.url}/v1`, models: [model('m1', { context_window: 16_000 })] }],
      {
        profile: { compression: { enabled: false } },
      },
    );
    dir = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', sid);
    await writeSession(dir, sid, { messages: MESSAGES });
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await fake?.stop();
  });

  it('pages back through 20,000 messages with cursors that neither overlap nor skip', async () => {
    const first = await rig.session(sid, '?limit=500');
    assert.deepEqual(ids(first), range(MESSAGES - 500, MESSAGES));
    assert.equal(first.message_count, MESSAGES);
    assert.equal(first.has_more, true);
    const seen: string[] = ids(first);
    let page = first;
    while (page.has_more) {
      page = await rig.session(sid, `?limit=500&before=${page.messages[0].id}`);
      seen.unshift(...ids(page));
    }
    assert.deepEqual(seen, range(0, MESSAGES));
    assert.deepEqual(page.messages[0].blocks[0].text.split(' ')[0], 'message0');
  });

  it('rebuilds the index when it is deleted, damaged or no longer matches the log', async () => {
    const expected = ids(await rig.session(sid, '?limit=50'));
    const idx = path.join(dir, 'events.idx');
    rmSync(idx);
    assert.deepEqual(ids(await rig.session(sid, '?limit=50')), expected, 'deleted');
    writeFileSync(idx, 'garbage that is not an index');
    assert.deepEqual(ids(await rig.session(sid, '?limit=50')), expected, 'damaged');
    const whole = readFileSync(idx);
    writeFileSync(idx, whole.subarray(0, whole.length - 7));
    assert.deepEqual(
      ids(await rig.session(sid, '?limit=50&before=' + messageId(MESSAGES - 50))),
      range(MESSAGES - 100, MESSAGES - 50),
      'cut',
    );
    // Records appended to the log (by another writer) are picked up; a torn last line is skipped.
    const extra = {
      t: 'message',
      m: { id: 'm-appended', role: 'user', created_at: new Date().toISOString(), blocks: [{ type: 'text', text: 'late' }] },
    };
    appendFileSync(path.join(dir, 'events.jsonl'), `${JSON.stringify(extra)}\n{"t":"message","m":{"id":"m-torn","ro`);
    const grown = await rig.session(sid, '?limit=2');
    assert.deepEqual(ids(grown), [messageId(MESSAGES - 1), 'm-appended']);
    assert.equal(grown.message_count, MESSAGES + 1);
  });

  it('a log replaced by another one gets a new index', async () => {
    const other = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', 's-other');
    await writeSession(other, 's-other', { messages: 30 });
    await rig.session('s-other');
    // Same folder, a different history of the same length (restored from a backup, say).
    const log = path.join(other, 'events.jsonl');
    writeFileSync(log, readFileSync(log, 'utf8').replaceAll('gen000', 'bak111'));
    assert.deepEqual(
      ids(await rig.session('s-other', '?limit=3')),
      range(27, 30).map((id) => id.replace('gen000', 'bak111')),
    );
  });

  it('a turn in the big session reads only the newest part of its history', async () => {
    fake.next({ chunks: compat.reply('noted') });
    const { end } = await rig.turn(sid, 'and now?');
    assert.equal(end.type, 'turn.completed');
    const sent = fake.seen[fake.seen.length - 1].json.messages.filter((m: any) => m.role !== 'system');
    assert.ok(sent.length > 10 && sent.length < 5000, `sent ${sent.length} messages`);
    assert.equal(sent[0].role, 'user', 'starts at a user message');
    assert.equal(sent[sent.length - 1].content, 'and now?');
    const after = await rig.session(sid, '?limit=2');
    assert.equal(after.message_count, MESSAGES + 3);
    assert.deepEqual(
      after.messages.map((m: any) => m.blocks[0].text),
      ['and now?', 'noted'],
    );
  });

  it('a 600 MB log opens and pages (never read as one string)', async () => {
    const big = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', 's-huge');
    await writeSession(big, 's-huge', { messages: 6 });
    const log = path.join(big, 'events.jsonl');
    // A sparse hole of 600 MB (a line of NULs the fold skips), then six more messages.
    const head = readFileSync(log, 'utf8');
    const fd = openSync(log, 'r+');
    const hole = 600 * 1024 * 1024;
    writeSync(fd, '\n', head.length + hole);
    writeSync(fd, head.replaceAll('gen000', 'end999'), head.length + hole + 1);
    closeSync(fd);
    const first = await rig.session('s-huge', '?limit=4');
    assert.deepEqual(
      ids(first),
      range(2, 6).map((id) => id.replace('gen000', 'end999')),
    );
    const back = await rig.session('s-huge', `?limit=10&before=${first.messages[0].id}`);
    assert.deepEqual(ids(back), [...range(0, 6), ...range(0, 2).map((id) => id.replace('gen000', 'end999'))]);
    assert.equal(back.has_more, false);
  });
});
