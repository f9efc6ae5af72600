import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ScriptedSse } from '../helpers/scripted-sse.js';
import { ChatRig, model } from './chat-harness.js';
import { compat } from './scripts.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => compat.text(`w${i} `));

describe('turns: one at a time, cancel, timeout, resume, crash', () => {
  let fake: ScriptedSse;
  let rig: ChatRig;
  before(async () => {
    fake = await ScriptedSse.start();
    rig = await ChatRig.start([{ id: 'c', type: 'compat', base_url: `${fake.url}/v1`, models: [model('m1')] }]);
  });
  beforeEach(() => rig.setProfile({}));
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await fake?.stop();
  });

  it('answers 409 turn_in_progress while a turn runs; cancel stops it and keeps what streamed', async () => {
    fake.next({ chunks: words(3), delayMs: 30, then: 'hang' });
    const sid = await rig.newSession();
    const watch = await rig.watch();
    const { turn_id } = await rig.send(sid, 'talk slowly');
    await watch.wait(turn_id, (f) => f.type === 'turn.delta' && f.text === 'w2 ');
    const busy = await rig.call('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'me too' });
    assert.equal(busy.status, 409);
    assert.equal(busy.body.error.code, 'turn_in_progress');
    const del = await rig.call('DELETE', rig.sessionsPath(sid));
    assert.equal(del.status, 409, 'no deleting under a running turn');

    await rig.ok('POST', `${rig.sessionsPath(sid)}/turns/${turn_id}/cancel`);
    const end = await watch.end(turn_id);
    assert.deepEqual(end.error.code, 'cancelled');
    const session = await rig.session(sid);
    assert.equal(session.active_turn, null);
    assert.deepEqual(session.messages[1].blocks, [{ type: 'text', text: 'w0 w1 w2 ' }]);
    const again = await rig.call('POST', `${rig.sessionsPath(sid)}/turns/${turn_id}/cancel`);
    assert.equal(again.status, 409, 'an ended turn cannot be cancelled');
    const unknown = await rig.call('POST', `${rig.sessionsPath(sid)}/turns/t-nope/cancel`);
    assert.equal(unknown.status, 404);
    watch.close();
  });

  it('ends with timeout after timeout_seconds and keeps the partial text', async () => {
    await rig.setProfile({ timeout_seconds: 1 });
    fake.next({ chunks: [compat.text('slow start')], then: 'hang' });
    const sid = await rig.newSession();
    const { end } = await rig.turn(sid, 'hi');
    assert.equal(end.error.code, 'timeout');
    assert.deepEqual((await rig.session(sid)).messages[1].blocks, [{ type: 'text', text: 'slow start' }]);
  });

  it('resumes after a WebSocket reconnect with exactly the missed frames, and after a reload via active_turn', async () => {
    fake.next({ chunks: [...words(12), compat.stop(), compat.done()], delayMs: 40 });
    const sid = await rig.newSession();
    const first = await rig.watch();
    const { turn_id } = await rig.send(sid, 'count');
    await first.wait(turn_id, (f) => f.type === 'turn.delta' && f.text === 'w2 ');
    first.close();
    const seen = first.frames(turn_id);
    const lastSeen = seen[seen.length - 1].seq as number;

    const session = await rig.session(sid);
    assert.equal(session.active_turn.turn_id, turn_id);
    assert.ok(session.active_turn.last_seq >= lastSeen);

    const second = await rig.watch();
    second.conn.socket.send(JSON.stringify({ type: 'resume', turn_id, after_seq: lastSeen }));
    await second.end(turn_id);
    const rest = second.frames(turn_id);
    const seqs = [...seen, ...rest].map((f) => f.seq).sort((a, b) => a - b);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'every frame exactly once across the two connections',
    );
    const text = [...seen, ...rest]
      .sort((a, b) => a.seq - b.seq)
      .filter((f) => f.type === 'turn.delta')
      .map((f) => f.text)
      .join('');
    assert.equal(text, Array.from({ length: 12 }, (_, i) => `w${i} `).join(''));

    // A page that reloads after the end reads the stored text; a resume of the finished turn replays it all.
    const third = await rig.watch();
    third.conn.socket.send(JSON.stringify({ type: 'resume', turn_id, after_seq: 0 }));
    await third.end(turn_id);
    assert.equal(third.frames(turn_id).length, seqs.length);
    second.close();
    third.close();
  });

  it('a page that reloads mid-turn reads the stored part and resumes after active_turn.last_seq: nothing lost, nothing twice', async () => {
    fake.next({ chunks: [...words(40), compat.stop(), compat.done()], delayMs: 8 });
    const sid = await rig.newSession();
    const watch = await rig.watch();
    const { turn_id } = await rig.send(sid, 'count fast');
    await watch.wait(turn_id, (f) => f.type === 'turn.delta' && f.text === 'w5 ');
    watch.close();
    // The "reload": read the session while chunks keep arriving, then resume from what it says.
    const page = await rig.session(sid);
    assert.equal(page.active_turn.turn_id, turn_id);
    const streaming = page.messages.find((m: any) => m.role === 'assistant');
    assert.equal(streaming.interrupted, undefined, 'a message still streaming is not marked interrupted');
    const stored = streaming.blocks[0].text as string;
    const reloaded = await rig.watch();
    reloaded.conn.socket.send(JSON.stringify({ type: 'resume', turn_id, after_seq: page.active_turn.last_seq }));
    await reloaded.end(turn_id);
    const later = reloaded
      .frames(turn_id)
      .filter((f) => f.seq > page.active_turn.last_seq && f.type === 'turn.delta')
      .map((f) => f.text)
      .join('');
    assert.equal(stored + later, Array.from({ length: 40 }, (_, i) => `w${i} `).join(''));
    reloaded.close();
  });

  it('keeps the history through a SIGKILL mid-turn and a torn last line, and goes on', async () => {
    const sid = await rig.newSession();
    fake.next({ chunks: [compat.text('Done before.'), compat.stop(), compat.done()] });
    assert.equal((await rig.turn(sid, 'first question')).end.type, 'turn.completed');
    const watch2 = await rig.watch();
    fake.next({ chunks: words(5), delayMs: 30, then: 'hang' });
    const { turn_id } = await rig.send(sid, 'crash now');
    await watch2.wait(turn_id, (f) => f.type === 'turn.delta' && f.text === 'w4 ');
    await new Promise((r) => setTimeout(r, 200));
    await rig.proc.kill();
    watch2.close();
    const log = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', sid, 'events.jsonl');
    appendFileSync(log, '{"t":"delta","id":"m-torn","turn_id":"t-x","kind":"text","te');

    await rig.restart();
    const session = await rig.session(sid);
    assert.equal(session.active_turn, null);
    const crashed = session.messages.at(-1);
    assert.equal(crashed.role, 'assistant');
    assert.equal(crashed.blocks[0].text, 'w0 w1 w2 w3 w4 ');
    assert.equal(crashed.interrupted, true);
    assert.equal(session.message_count, session.messages.length, 'the count follows the log after a crash');
    assert.ok(session.messages.some((m: any) => m.blocks[0]?.text === 'crash now'));

    fake.next({ chunks: [compat.text('Back again.'), compat.stop(), compat.done()] });
    const { end } = await rig.turn(sid, 'still there?');
    assert.equal(end.type, 'turn.completed');
    const after = await rig.session(sid);
    assert.equal(after.messages.at(-1).blocks[0].text, 'Back again.');
    assert.equal(after.messages.at(-3).blocks[0].text, 'w0 w1 w2 w3 w4 ');
    // The request after the crash carried the interrupted reply as history.
    const sent = fake.seen.at(-1)!.json.messages.map((m: any) => m.content);
    assert.ok(sent.includes('w0 w1 w2 w3 w4 '));
    const lines = readFileSync(log, 'utf8').split('\n');
    assert.ok(
      lines.some((l) => l.endsWith('"te')),
      'the torn line stays, closed off by a newline',
    );
  });
});
