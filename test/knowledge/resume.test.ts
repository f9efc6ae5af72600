import assert from 'node:assert/strict';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { KbRig } from './kb-harness.js';

// The durable job (DESIGN 13): a SIGKILL mid-embedding, then a restart, resumes without asking the
// provider again for any embedding already stored; pause stops the job and resume finishes it.

const text = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Section ${i}: ${Array.from({ length: 380 }, (_, k) => `${tag}${i}w${k}`).join(' ')}`).join('\n\n');

describe('knowledge: crash, restart, pause and resume of ingestion', () => {
  let rig: KbRig;
  before(async () => {
    rig = await KbRig.start({ dims: 16 });
  });
  after(async () => rig?.stop());

  it('SIGKILL mid-embedding: after a restart only the vectors not stored are requested', async () => {
    const kb = await rig.createKb({ name: 'crash', embedding: { model: 'emb:bow' } });
    rig.emb.slowMs = 150;
    const start = rig.emb.requests;
    const src = await rig.uploadOk(kb.id, 'big.txt', Buffer.from(text('k', 400)));
    // Several batches answered and stored (2 in flight at most), more still to come.
    await rig.emb.waitForRequests(start + 5);
    await rig.proc.kill();
    const mark = rig.emb.arrived.length;
    const db = new DatabaseSync(path.join(rig.proc.dataDir, 'knowledge', kb.id, 'index.sqlite'));
    const stored = Number((db.prepare("SELECT COUNT(*) AS n FROM vectors WHERE model = 'emb:bow'").get() as { n: number }).n);
    const distinct = Number((db.prepare('SELECT COUNT(DISTINCT hash) AS n FROM chunks').get() as { n: number }).n);
    const storedTexts = new Set(
      (
        db.prepare("SELECT c.text AS t FROM chunks c JOIN vectors v ON v.hash = c.hash AND v.model = 'emb:bow'").all() as { t: string }[]
      ).map((r) => r.t),
    );
    db.close();
    assert.ok(stored >= 64, `some batches were stored before the kill (${stored})`);
    assert.ok(stored < distinct, `the kill came before the end (${stored} of ${distinct})`);

    rig.emb.slowMs = 0;
    await rig.restart();
    const ready = await rig.waitState(kb.id, src.id, ['ready', 'failed']);
    assert.equal(ready.state, 'ready', JSON.stringify(ready));
    const after = rig.emb.arrived.slice(mark);
    assert.equal(after.length, distinct - stored);
    assert.ok(
      after.every((t) => !storedTexts.has(t)),
      'no stored embedding was requested again',
    );
    assert.equal(new Set(after).size, after.length);
  });

  it('pause stops the job where it is; resume finishes it without asking twice for any chunk', async () => {
    const kb = await rig.createKb({ name: 'pause', embedding: { model: 'emb:bow' } });
    rig.emb.slowMs = 100;
    const mark = rig.emb.arrived.length;
    const start = rig.emb.requests;
    const src = await rig.uploadOk(kb.id, 'p.txt', Buffer.from(text('p', 300)));
    await rig.emb.waitForRequests(start + 3);
    const paused = await rig.ok('POST', `/api/knowledge/${kb.id}/sources/${src.id}/pause`);
    assert.equal(paused.state, 'paused');
    const detail = await rig.source(kb.id, src.id);
    assert.equal(detail.state, 'paused');
    assert.ok(detail.chunks_done < detail.chunks_total);
    const bad = await rig.call('POST', `/api/knowledge/${kb.id}/sources/${src.id}/pause`);
    assert.equal(bad.status, 200); // pausing a paused source is a no-op
    rig.emb.slowMs = 0;
    await rig.ok('POST', `/api/knowledge/${kb.id}/sources/${src.id}/resume`);
    const ready = await rig.waitState(kb.id, src.id, ['ready', 'failed']);
    assert.equal(ready.state, 'ready');
    const asked = rig.emb.arrived.slice(mark);
    // Requests in flight at the pause are answered but dropped; the rest is asked exactly once.
    assert.ok(asked.length <= ready.chunks_total + 128, `${asked.length} inputs for ${ready.chunks_total} chunks`);
    const conflict = await rig.call('POST', `/api/knowledge/${kb.id}/sources/${src.id}/resume`);
    assert.equal(conflict.status, 409);
  });
});
