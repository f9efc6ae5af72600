import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ScriptedSse } from '../helpers/scripted-sse.js';
import { ChatRig, model } from './chat-harness.js';
import { compat } from './scripts.js';

const records = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** A turn that streams a little, then waits on a provider that never finishes. */
async function hangingTurn(rig: ChatRig, fake: ScriptedSse) {
  fake.next({ chunks: [compat.text('Half an ans'), compat.text('wer so far')], then: 'hang' });
  const sid = await rig.newSession();
  const watch = await rig.watch();
  const { turn_id } = await rig.send(sid, 'tell me everything');
  await watch.wait(turn_id, (m) => m.type === 'turn.delta' && m.text === 'wer so far');
  return { sid, turnId: turn_id, watch };
}

describe('running turns when the backend stops or their workspace goes', () => {
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

  it('deleting the workspace ends its running turn (cancelled, its records kept in the trash)', async () => {
    const { sid, turnId, watch } = await hangingTurn(rig, fake);
    const deleted = await rig.call('DELETE', `/api/workspaces/${rig.workspaceId}`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    const end = await watch.end(turnId, 5000);
    watch.close();
    assert.deepEqual([end.type, end.error?.code], ['turn.failed', 'cancelled']);
    const trashed = path.join(rig.proc.dataDir, deleted.body.trashed_to as string, 'sessions', sid);
    const log = records(path.join(trashed, 'events.jsonl'));
    const last = log[log.length - 1];
    assert.deepEqual([last.t, last.turn_id, last.error?.code], ['turn_end', turnId, 'cancelled']);
    assert.ok(last.usage, 'the turn end carries its usage');
    assert.equal(JSON.parse(readFileSync(path.join(trashed, 'session.json'), 'utf8')).message_count, 2);
    assert.ok(!existsSync(path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId)), 'nothing written back into the deleted folder');
  });

  it('SIGTERM waits a moment for running turns, then ends them with their records, and exits 0', async () => {
    const ws = await rig.ok('POST', '/api/workspaces', { name: 'second', profile_id: rig.profileId });
    rig.workspaceId = ws.id;
    const { sid, turnId, watch } = await hangingTurn(rig, fake);
    const started = Date.now();
    const code = await rig.proc.stop('SIGTERM');
    watch.close();
    assert.equal(code, 0, rig.proc.output());
    assert.ok(Date.now() - started < 5000, 'bounded');
    const dir = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', sid);
    const log = records(path.join(dir, 'events.jsonl'));
    const last = log[log.length - 1];
    assert.deepEqual([last.t, last.turn_id, last.error?.code], ['turn_end', turnId, 'cancelled'], JSON.stringify(log));
    assert.match(last.error.message, /stopp/);
    const meta = JSON.parse(readFileSync(path.join(dir, 'session.json'), 'utf8'));
    assert.equal(meta.message_count, 2);
    assert.ok(!readdirSync(dir).some((n) => n.startsWith('.tmp-')));
    // After a restart the answer so far is there, marked as ended (not a crash).
    await rig.restart();
    const session = await rig.session(sid);
    assert.equal(session.messages[1].blocks[0].text, 'Half an answer so far');
    assert.equal(session.messages[1].interrupted, undefined);
    assert.equal(session.messages[1].error.code, 'cancelled');
  });
});
