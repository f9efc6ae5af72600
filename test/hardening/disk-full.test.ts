import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ChatRig, model } from '../chat/chat-harness.js';
import { compat } from '../chat/scripts.js';
import { tempDir } from '../helpers/backend-process.js';
import { ScriptedSse } from '../helpers/scripted-sse.js';

const PRELOAD = pathToFileURL(path.resolve(import.meta.dirname, '../helpers/enospc-preload.js')).href;

/** ENOSPC injected at the write layer of a real backend (a preload that fails its file writes on demand). */
describe('disk full during a turn and a config change', () => {
  let fake: ScriptedSse;
  let rig: ChatRig;
  const flag = path.join(tempDir('svc-enospc-'), 'full');
  const diskFull = (on: boolean) => (on ? writeFileSync(flag, '') : rmSync(flag, { force: true }));
  let sid = '';
  let dir = '';

  before(async () => {
    fake = await ScriptedSse.start();
    rig = await ChatRig.start([{ id: 'c', type: 'compat', base_url: `${fake.url}/v1`, models: [model('m1')] }], {
      start: { env: { NODE_OPTIONS: `--import=${PRELOAD}`, SERVICE_TEST_ENOSPC_FLAG: flag } },
    });
    sid = await rig.newSession();
    dir = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', sid);
    fake.next({ chunks: compat.reply('First answer, stored.') });
    assert.equal((await rig.turn(sid, 'first question')).end.type, 'turn.completed');
  });
  after(async () => {
    diskFull(false);
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await fake?.stop();
  });

  it('the turn fails with storage_error; nothing stored before is lost; reads keep working', async () => {
    const logBefore = readFileSync(path.join(dir, 'events.jsonl'));
    fake.next({ chunks: [compat.text('A second answer that '), compat.text('will not fit.'), ...compat.reply('')], delayMs: 300 });
    const watch = await rig.watch();
    const { turn_id } = await rig.send(sid, 'second question');
    diskFull(true);
    const end = await watch.end(turn_id, 10_000);
    watch.close();
    assert.deepEqual([end.type, end.error?.code], ['turn.failed', 'storage_error']);
    assert.match(end.error.message, /disk is full \(ENOSPC\).*history stored so far is intact/);
    const logNow = readFileSync(path.join(dir, 'events.jsonl'));
    assert.ok(logNow.subarray(0, logBefore.length).equals(logBefore), 'every byte stored before is still there');
    // session.json is replaced atomically or not at all: still whole.
    assert.equal(JSON.parse(readFileSync(path.join(dir, 'session.json'), 'utf8')).id, sid);

    // Reads while the disk is still full: the session, the list, search.
    const session = await rig.session(sid);
    assert.deepEqual(
      session.messages.slice(0, 3).map((m: any) => m.blocks[0]?.text),
      ['first question', 'First answer, stored.', 'second question'],
    );
    assert.ok((await rig.ok('GET', rig.sessionsPath())).sessions.some((s: any) => s.id === sid));
    assert.equal((await rig.ok('GET', '/api/search?q=stored')).hits[0]?.session_id, sid);

    // A new message and a config change fail with a clear error; the files stay as they were.
    const refused = await rig.call('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'third' });
    assert.equal(refused.body.error?.code, 'storage_error', JSON.stringify(refused.body));
    assert.match(refused.body.error.message, /no space left on the device/);
    const profileFile = path.join(rig.proc.dataDir, 'profiles', `${rig.profileId}.yaml`);
    const profileBefore = readFileSync(profileFile, 'utf8');
    const change = await rig.call('PUT', `/api/profiles/${rig.profileId}`, { language: 'zh' });
    assert.equal(change.body.error?.code, 'storage_error');
    assert.equal(readFileSync(profileFile, 'utf8'), profileBefore);
    assert.equal((await rig.call('GET', '/health')).status, 200);
  });

  it('once there is space again the session goes on, the torn tail skipped', async () => {
    diskFull(false);
    fake.next({ chunks: compat.reply('Back in business.') });
    const { end } = await rig.turn(sid, 'fourth question');
    assert.equal(end.type, 'turn.completed');
    const texts = (await rig.session(sid)).messages.map((m: any) => m.blocks[0]?.text);
    assert.deepEqual(texts.slice(0, 3), ['first question', 'First answer, stored.', 'second question']);
    assert.deepEqual(texts.slice(-2), ['fourth question', 'Back in business.']);
  });
});
