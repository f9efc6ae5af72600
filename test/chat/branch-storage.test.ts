import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ScriptedSse } from '../helpers/scripted-sse.js';
import { ChatRig, model } from './chat-harness.js';
import { compat } from './scripts.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => compat.text(`w${i} `));
const texts = (session: any) => session.messages.map((m: any) => m.blocks?.[0]?.text ?? '');
const sentTexts = (fake: ScriptedSse) =>
  fake.seen
    .at(-1)!
    .json.messages.filter((m: any) => m.role !== 'system')
    .map((m: any) => m.content);

describe('branch storage: legacy logs, failed turns, a SIGKILL during a regenerate', () => {
  let fake: ScriptedSse;
  let rig: ChatRig;
  before(async () => {
    fake = await ScriptedSse.start();
    rig = await ChatRig.start([{ id: 'c', type: 'compat', base_url: `${fake.url}/v1`, models: [model('m1')] }]);
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await fake?.stop();
  });

  const logFile = (sid: string) => path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', sid, 'events.jsonl');

  it('a log written before branches (no parent_id) opens as one chain and is not rewritten', async () => {
    const sid = await rig.newSession();
    const at = '2026-01-01T00:00:00.000Z';
    const usage = { input: 1, output: 1, cache_read: 0, cache_write: 0, reasoning: 0 };
    const lines = [
      { t: 'message', m: { id: 'm-1', role: 'user', created_at: at, blocks: [{ type: 'text', text: 'old question' }], turn_id: 't-1' } },
      { t: 'message', m: { id: 'm-2', role: 'assistant', created_at: at, blocks: [{ type: 'text', text: 'old answer' }], turn_id: 't-1' } },
      { t: 'turn_end', turn_id: 't-1', at, stop_reason: 'end_turn', usage, model: 'c:m1' },
      { t: 'message', m: { id: 'm-3', role: 'user', created_at: at, blocks: [{ type: 'text', text: 'second question' }], turn_id: 't-2' } },
      { t: 'delta', id: 'm-4', turn_id: 't-2', kind: 'text', text: 'cut short' },
    ];
    const legacy = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    writeFileSync(logFile(sid), legacy);
    const session = await rig.session(sid);
    assert.deepEqual(texts(session), ['old question', 'old answer', 'second question', 'cut short']);
    assert.deepEqual(
      session.messages.map((m: any) => m.parent_id),
      [null, 'm-1', 'm-2', 'm-3'],
    );
    for (const m of session.messages) assert.deepEqual(m.siblings, { index: 1, count: 1 });
    assert.equal(readFileSync(logFile(sid), 'utf8'), legacy, 'reading rewrites nothing');

    fake.next({ chunks: compat.reply('New answer.') });
    await rig.turn(sid, 'third question');
    assert.deepEqual(sentTexts(fake), ['old question', 'old answer', 'second question', 'cut short', 'third question']);
    // And the old messages can be branched from like new ones.
    fake.next({ chunks: compat.reply('Edited answer.') });
    const edit = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'second, edited', parent_id: 'm-2' });
    await rig.watch().then(async (w) => {
      await w.end(edit.turn_id);
      w.close();
    });
    const edited = await rig.session(sid);
    assert.deepEqual(texts(edited), ['old question', 'old answer', 'second, edited', 'Edited answer.']);
    assert.deepEqual(edited.messages[2].siblings, { index: 2, count: 2 });
  });

  it('a failed turn stores its reply with the error; retry is a regenerate that stores the question once', async () => {
    const sid = await rig.newSession();
    fake.next({ status: 500, chunks: ['{"error":{"message":"boom"}}'] });
    const { end } = await rig.turn(sid, 'fragile question');
    assert.equal(end.type, 'turn.failed');
    const failed = await rig.session(sid);
    assert.equal(failed.messages.length, 2);
    const reply = failed.messages[1];
    assert.equal(reply.role, 'assistant');
    assert.deepEqual(reply.blocks, []);
    assert.equal(reply.error.code, end.error.code);

    fake.next({ chunks: compat.reply('Worked this time.') });
    const watch = await rig.watch();
    const retry = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages/${reply.id}/regenerate`, {});
    const done = await watch.end(retry.turn_id);
    watch.close();
    assert.equal(done.type, 'turn.completed');
    assert.deepEqual(sentTexts(fake), ['fragile question']);
    const after = await rig.session(sid);
    assert.deepEqual(texts(after), ['fragile question', 'Worked this time.']);
    assert.deepEqual(after.messages[1].siblings, { index: 2, count: 2 });
    assert.equal(after.message_count, 3, 'question once, two replies');
  });

  it('a SIGKILL during a regenerate loses nothing stored before it; the shown branch and sibling positions survive', async () => {
    const sid = await rig.newSession();
    fake.next({ chunks: compat.reply('First reply.') });
    await rig.turn(sid, 'question one');
    fake.next({ chunks: compat.reply('Second reply.') });
    await rig.turn(sid, 'question two');
    const before = await rig.session(sid);
    const oldReply = before.messages[3];

    fake.next({ chunks: words(4), delayMs: 30, then: 'hang' });
    const watch = await rig.watch();
    const regen = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages/${oldReply.id}/regenerate`, {});
    await watch.wait(regen.turn_id, (f) => f.type === 'turn.delta' && f.text === 'w3 ');
    await new Promise((r) => setTimeout(r, 150));
    await rig.proc.kill();
    watch.close();

    await rig.restart();
    const after = await rig.session(sid);
    assert.equal(after.active_turn, null);
    assert.deepEqual(texts(after), ['question one', 'First reply.', 'question two', 'w0 w1 w2 w3 ']);
    assert.equal(after.messages[3].interrupted, true);
    assert.deepEqual(after.messages[3].siblings, { index: 2, count: 2 });
    const siblings = await rig.ok('GET', `${rig.sessionsPath(sid)}/messages/${after.messages[3].id}/siblings`);
    assert.deepEqual(
      siblings.messages.map((m: any) => m.blocks[0].text),
      ['Second reply.', 'w0 w1 w2 w3 '],
    );
    const back = await rig.ok('PUT', `${rig.sessionsPath(sid)}/active`, { message_id: oldReply.id });
    assert.deepEqual(texts(back), ['question one', 'First reply.', 'question two', 'Second reply.']);
    await rig.proc.stop();
    await rig.restart();
    assert.deepEqual(
      texts(await rig.session(sid)),
      ['question one', 'First reply.', 'question two', 'Second reply.'],
      'the chosen sibling survives a restart',
    );
  });
});
