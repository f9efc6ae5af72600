import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { readEntries } from '../backup/backup-kit.js';
import { openWs } from '../helpers/ws-client.js';
import { KbRig } from './kb-harness.js';

// A knowledge base's life (DESIGN 13): create, rename, progress frames on the WebSocket, a damaged
// index rebuilt from kb.json and the stored files, backups holding a consistent index, delete to trash.

describe('knowledge: lifecycle, progress, damaged index, backups, trash', () => {
  let rig: KbRig;
  before(async () => {
    rig = await KbRig.start();
  });
  after(async () => rig?.stop());

  it('creates, lists, renames; bad bodies name the field', async () => {
    const kb = await rig.createKb({ name: 'Manuals', description: 'product manuals' });
    assert.match(kb.id, /^kb_[0-9a-f]{12}$/);
    assert.deepEqual([kb.embedding, kb.rerank, kb.chunking], [null, null, { tokens: 512, overlap: 64 }]);
    const list = await rig.ok('GET', '/api/knowledge');
    assert.ok(list.knowledge_bases.some((k: any) => k.id === kb.id && k.name === 'Manuals'));
    const renamed = await rig.ok('PATCH', `/api/knowledge/${kb.id}`, { name: 'Handbooks' });
    assert.equal(renamed.name, 'Handbooks');
    assert.deepEqual(renamed.sources, []);
    for (const [body, field] of [
      [{ name: '' }, 'name'],
      [{ name: 'x', chunking: { tokens: 10, overlap: 0 } }, 'chunking.tokens'],
      [{ name: 'x', embedding: { model: 'nocolon' } }, 'embedding.model'],
      [{ name: 'x', rerank: { model: 'emb:bow' } }, 'rerank.model'],
      [{ name: 'x', extra: 1 }, undefined],
    ] as const) {
      const res = await rig.call('POST', '/api/knowledge', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      if (field) assert.equal(res.body.error.field, field, JSON.stringify(res.body));
    }
    assert.equal((await rig.call('GET', '/api/knowledge/kb_000000000000')).status, 404);
    assert.equal((await rig.call('GET', '/api/knowledge/..%2f..')).status, 404);
  });

  it('sends knowledge.progress frames until the source is ready', async () => {
    const kb = await rig.createKb({ name: 'progress', embedding: { model: 'emb:bow' } });
    const conn = await openWs(`${rig.proc.url.replace(/^http/, 'ws')}/ws`, { authorization: `Bearer ${rig.credential}` });
    try {
      const src = await rig.uploadOk(kb.id, 'p.md', Buffer.from('# P\n\nprogress frames about the serval\n'));
      const ready = await conn.next((m) => m.type === 'knowledge.progress' && m.source_id === src.id && m.state === 'ready', 30_000);
      assert.deepEqual(ready, {
        type: 'knowledge.progress',
        kb_id: kb.id,
        source_id: src.id,
        state: 'ready',
        chunks_done: 1,
        chunks_total: 1,
      });
      const states = conn.messages.filter((m) => m.source_id === src.id).map((m) => m.state);
      assert.ok(states.includes('embedding'), states.join(','));
    } finally {
      conn.socket.close();
    }
  });

  it('a damaged index is rebuilt from kb.json and the stored files at start, never fatal', async () => {
    const kb = await rig.createKb({ name: 'damaged' });
    const src = await rig.uploadOk(kb.id, 'd.txt', Buffer.from('the fennecfox survives a damaged index\n'));
    await rig.waitState(kb.id, src.id, ['ready']);
    await rig.proc.stop();
    const file = path.join(rig.proc.dataDir, 'knowledge', kb.id, 'index.sqlite');
    for (const f of [`${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    writeFileSync(file, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 0xab)]));
    await rig.restart();
    assert.equal((await rig.waitState(kb.id, src.id, ['ready', 'failed'])).state, 'ready');
    assert.equal((await rig.search(kb.id, 'fennecfox')).body.results[0]?.source_id, src.id);
    assert.ok(readdirSync(path.dirname(file)).some((n) => n.startsWith('index.sqlite.damaged-')));
  });

  it('a backup holds kb.json, the stored files and a consistent copy of the index', async () => {
    const kb = await rig.createKb({ name: 'backed up' });
    const src = await rig.uploadOk(kb.id, 'b.txt', Buffer.from('the backup keeps the caracalion\n'));
    await rig.waitState(kb.id, src.id, ['ready']);
    const made = await rig.ok('POST', '/api/backups', {});
    const entries = await readEntries(path.join(rig.proc.dataDir, 'backups', made.name));
    const prefix = `data/knowledge/${kb.id}/`;
    const names = entries.map((e) => e.path);
    assert.ok(names.includes(`${prefix}kb.json`), names.join('\n'));
    assert.ok(names.some((n) => n.startsWith(`${prefix}files/`) && /[0-9a-f]{64}$/.test(n)));
    assert.ok(!names.some((n) => n.startsWith(prefix) && /-(wal|shm)$/.test(n)));
    const index = entries.find((e) => e.path === `${prefix}index.sqlite`);
    assert.ok(index?.body);
    const copy = path.join(os.tmpdir(), `kb-backup-${process.pid}.sqlite`);
    writeFileSync(copy, index.body);
    const db = new DatabaseSync(copy, { readOnly: true });
    try {
      const row = db.prepare('SELECT COUNT(*) AS n FROM chunks_fts WHERE chunks_fts MATCH \'"caracalion"\'').get() as { n: number };
      assert.equal(Number(row.n), 1);
    } finally {
      db.close();
      rmSync(copy, { force: true });
    }
  });

  it('delete moves the folder to trash/', async () => {
    const kb = await rig.createKb({ name: 'doomed' });
    const res = await rig.call('DELETE', `/api/knowledge/${kb.id}`);
    assert.equal(res.status, 204);
    assert.equal((await rig.call('GET', `/api/knowledge/${kb.id}`)).status, 404);
    assert.ok(!existsSync(path.join(rig.proc.dataDir, 'knowledge', kb.id)));
    const trashed = readdirSync(path.join(rig.proc.dataDir, 'trash')).filter((n) => n.startsWith(`knowledge-${kb.id}`));
    assert.equal(trashed.length, 1);
    assert.ok(existsSync(path.join(rig.proc.dataDir, 'trash', trashed[0], 'kb.json')));
  });
});
