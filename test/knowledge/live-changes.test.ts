import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api } from '../helpers/backend-process.js';
import { openWs, type WsOpen } from '../helpers/ws-client.js';
import { KbRig } from './kb-harness.js';

// Other clients follow the knowledge lists (docs/knowledge.md "Changes on the WebSocket"): every
// change to the list of KBs or to a KB's sources, whichever device made it, is announced to every
// connected device as `config.changed {resource: "knowledge", id: <kb id>}`.

describe('knowledge: changes announced on the WebSocket', () => {
  let rig: KbRig;
  /** A second device (a member) watching: it must hear of the owner's changes, and the owner of its. */
  let member = '';
  let watcher: WsOpen;

  const changes = () => watcher.messages.filter((m) => m.type === 'config.changed' && m.resource === 'knowledge');
  /** Waits for the next knowledge change after the `seen` ones. */
  async function next(seen: number): Promise<any> {
    if (changes().length > seen) return changes()[seen];
    await watcher.next((m) => m.type === 'config.changed' && m.resource === 'knowledge' && changes().length > seen, 20_000);
    return changes()[seen];
  }

  before(async () => {
    rig = await KbRig.start();
    const invite = await rig.ok('POST', '/api/selfhost/devices/invite', { name: 'Phone' });
    member = (await api(rig.proc.url, 'POST', '/api/pairing/join', { body: { invite_code: invite.code } })).body.credential;
    watcher = await openWs(`${rig.proc.url.replace(/^http/, 'ws')}/ws`, { authorization: `Bearer ${member}` });
    await watcher.next((m) => m.type === 'hello');
  });
  after(async () => {
    watcher?.socket.close();
    await rig?.stop();
  });

  it('create, rename, add and remove a source, delete: each announced with the KB id; a failed change is not', async () => {
    let seen = changes().length;
    const kb = await rig.createKb({ name: 'Live' });
    assert.deepEqual(await next(seen++), { type: 'config.changed', resource: 'knowledge', id: kb.id });

    await rig.ok('PATCH', `/api/knowledge/${kb.id}`, { name: 'Live two' });
    assert.equal((await next(seen++)).id, kb.id);

    // The member adds a note: the owner's clients hear of it the same way (the watcher sees every frame).
    const note = await api(rig.proc.url, 'POST', `/api/knowledge/${kb.id}/sources`, {
      credential: member,
      body: { kind: 'note', title: 'Memo', text: 'The ocelot memo.' },
    });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    assert.equal((await next(seen++)).id, kb.id);
    const file = await rig.uploadOk(kb.id, 'f.txt', Buffer.from('the margay file\n'));
    assert.equal((await next(seen++)).id, kb.id);
    await rig.waitState(kb.id, file.id, ['ready']);

    const removed = await rig.call('DELETE', `/api/knowledge/${kb.id}/sources/${note.body.id}`);
    assert.equal(removed.status, 204);
    assert.equal((await next(seen++)).id, kb.id);

    // Refused changes change nothing and announce nothing.
    assert.equal((await rig.call('POST', '/api/knowledge', { name: '' })).status, 400);
    assert.equal((await rig.call('PATCH', `/api/knowledge/${kb.id}`, { name: '' })).status, 400);
    const folder = await api(rig.proc.url, 'POST', `/api/knowledge/${kb.id}/sources`, {
      credential: member,
      body: { kind: 'folder', path: '/tmp' },
    });
    assert.equal(folder.status, 403);
    // Frames of one socket keep their order: the next one is the marker's only if none came before it.
    const marker = await rig.createKb({ name: 'Marker' });
    assert.equal((await next(seen++)).id, marker.id, 'no frame for the refused changes');

    assert.equal((await rig.call('DELETE', `/api/knowledge/${kb.id}`)).status, 204);
    assert.deepEqual(await next(seen), { type: 'config.changed', resource: 'knowledge', id: kb.id });
  });
});
