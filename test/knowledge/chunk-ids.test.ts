import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { KbIndex, textHash } from '../../backend/knowledge/kb-index.js';
import { salvageVectors } from '../../backend/knowledge/kb-index-schema.js';
import { KbRig } from './kb-harness.js';

// Stable chunk ids (`ck_…`): the same text of the same source keeps its id through a retry, and an
// index written before stable ids (rowids as chunk ids, user_version 0) is migrated in place at
// start: nothing is parsed or embedded again, and the numeric ids old citations hold still open
// their passage.

const LINES = Array.from({ length: 120 }, (_, i) => `Row ${i + 1}: the quokka census counted ${i * 7} animals on the island.`);
/** A few chunks of about 512 tokens. */
const TEXT = `${LINES.join('\n')}\n`;

describe('knowledge: stable chunk ids, migration of an index from before them', () => {
  let rig: KbRig;
  before(async () => {
    rig = await KbRig.start();
  });
  after(async () => rig?.stop());

  it('ids are ck_ ids, unchanged by a retry; an old index is migrated without re-embedding and its numeric ids still open', async () => {
    const kb = (await rig.createKb({ name: 'census', embedding: { model: 'emb:bow' } })).id;
    const src = (await rig.uploadOk(kb, 'census.txt', Buffer.from(TEXT))).id;
    await rig.waitState(kb, src, ['ready']);
    const before = (await rig.ok('GET', `/api/knowledge/${kb}/sources/${src}/chunks`)).chunks as any[];
    assert.ok(before.length >= 2, `${before.length} chunks`);
    for (const c of before) assert.match(c.chunk_id, /^ck_[0-9a-f]{20}$/);
    const hit = (await rig.search(kb, 'quokka census', { mode: 'hybrid' })).body.results[0];
    assert.ok(before.some((c) => c.chunk_id === hit.chunk_id));

    await rig.ok('POST', `/api/knowledge/${kb}/sources/${src}/retry`);
    await rig.waitState(kb, src, ['ready']);
    const retried = (await rig.ok('GET', `/api/knowledge/${kb}/sources/${src}/chunks`)).chunks as any[];
    assert.deepEqual(
      retried.map((c) => c.chunk_id),
      before.map((c) => c.chunk_id),
    );

    // Turn the index back into one of version 0, as the previous release wrote it.
    await rig.proc.stop();
    const file = path.join(rig.proc.dataDir, 'knowledge', kb, 'index.sqlite');
    const db = new DatabaseSync(file);
    const rows = db.prepare('SELECT id, cid, text FROM chunks ORDER BY seq').all() as { id: number; cid: string; text: string }[];
    db.exec(
      'DROP INDEX chunks_by_cid; ALTER TABLE chunks DROP COLUMN cid; DROP TABLE legacy_ids; ALTER TABLE vectors DROP COLUMN q; PRAGMA user_version = 0;',
    );
    db.close();
    const requests = rig.emb.requests;
    await rig.restart();
    await rig.waitState(kb, src, ['ready']);
    assert.equal(rig.emb.requests, requests, 'no embedding is requested again');
    const migrated = (await rig.ok('GET', `/api/knowledge/${kb}/sources/${src}/chunks`)).chunks as any[];
    assert.deepEqual(
      migrated.map((c) => c.chunk_id),
      rows.map((r) => r.cid),
      'the migration gives the ids a fresh parse gives',
    );
    for (const r of rows) {
      const span = await rig.ok('GET', `/api/knowledge/${kb}/sources/${src}/chunks?chunk_id=${r.id}`);
      assert.equal(span.chunk_id, r.cid);
      assert.equal(span.chunks.find((c: any) => c.chunk_id === r.cid)?.text, r.text);
    }
    const gone = await rig.call('GET', `/api/knowledge/${kb}/sources/${src}/chunks?chunk_id=${rows.at(-1)!.id + 1000}`);
    assert.equal(gone.status, 404);
    assert.match(gone.body.error.message, /no longer exists in census\.txt/);
    assert.equal((await rig.search(kb, 'quokka census', { mode: 'vector' })).body.mode, 'vector');
  });
});

describe('knowledge: chunk ids through a folder re-sync and a re-embed', () => {
  let rig: KbRig;
  let folder: string;
  before(async () => {
    rig = await KbRig.start();
    folder = mkdtempSync(path.join(os.tmpdir(), 'kb-ids-folder-'));
  });
  after(async () => {
    await rig?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  /** chunk id → [file, text] of every chunk of the source. */
  async function ids(kb: string, src: string): Promise<Map<string, [string, string]>> {
    const span = await rig.ok('GET', `/api/knowledge/${kb}/sources/${src}/chunks`);
    return new Map((span.chunks as any[]).map((c) => [c.chunk_id, [c.location.file, c.text]]));
  }

  it('a file that did not change keeps its ids when another changes; a changed text gets a new id; a re-embed changes none', async () => {
    writeFileSync(path.join(folder, 'a.md'), '# Aardvarks\n\nThe aardvark digs at night.\n');
    writeFileSync(path.join(folder, 'b.md'), '# Bilbies\n\nThe bilby eats seeds.\n');
    const kb = (await rig.createKb({ name: 'folder ids', embedding: { model: 'emb:bow' } })).id;
    const src = (await rig.ok('POST', `/api/knowledge/${kb}/sources`, { kind: 'folder', path: folder })).id;
    await rig.waitState(kb, src, ['ready']);
    const first = await ids(kb, src);
    assert.equal(first.size, 2);
    const idOf = (m: Map<string, [string, string]>, file: string) => [...m].find(([, [f]]) => f === file)?.[0];

    writeFileSync(path.join(folder, 'b.md'), '# Bilbies\n\nThe bilby eats seeds and bulbs.\n');
    await rig.ok('POST', `/api/knowledge/${kb}/sources/${src}/retry`);
    let second = first;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
      second = await ids(kb, src);
      if ([...second.values()].some(([, text]) => text.includes('bulbs'))) break;
    }
    assert.equal(idOf(second, 'a.md'), idOf(first, 'a.md'));
    assert.notEqual(idOf(second, 'b.md'), idOf(first, 'b.md'));

    await rig.ok('PATCH', `/api/knowledge/${kb}`, { embedding: { model: 'emb:bow2' } });
    await rig.waitState(kb, src, ['ready']);
    assert.deepEqual([...(await ids(kb, src)).keys()].sort(), [...second.keys()].sort());
    const hit = (await rig.search(kb, 'aardvark digs', { mode: 'vector' })).body;
    assert.equal(hit.mode, 'vector');
    assert.equal(hit.results[0].chunk_id, idOf(first, 'a.md'));
  });
});

describe('knowledge: vectors of a damaged index are kept when they can be read', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'kb-salvage-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a text repeated in one source gets one id per repeat, the same ones when it is parsed again', async () => {
    const { index } = await KbIndex.open(path.join(dir, 'repeats.sqlite'));
    index.addSource('src_000000000001', 'parsing', 0);
    const drafts = ['same words', 'same words', 'other words'].map((text, i) => ({ text, location: { line_start: i + 1 } }));
    index.tx(() => index.insertChunks('src_000000000001', null, drafts));
    const first = index.span('src_000000000001', 0, 10).map((c) => c.cid);
    assert.equal(new Set(first).size, 3);
    index.clearChunks('src_000000000001');
    index.tx(() => index.insertChunks('src_000000000001', null, drafts));
    assert.deepEqual(
      index.span('src_000000000001', 0, 10).map((c) => c.cid),
      first,
    );
    index.close();
  });

  it('a file of one text repeated many times, or of distinct texts, is stored in work linear in its length, its ids one per repeat', async () => {
    let index = (await KbIndex.open(path.join(dir, 'equal-lines.sqlite'))).index;
    // CPU time of storing n equal chunks, in slices as the ingestion stores them.
    const store = (sourceId: string, n: number, equal = true) => {
      index.addSource(sourceId, 'parsing', 0);
      const drafts = Array.from({ length: n }, (_, i) => ({ text: equal ? '[[[[[[[[' : `line ${i}`, location: { line_start: i + 1 } }));
      const t = process.cpuUsage();
      for (let i = 0; i < n; i += 100) index.tx(() => index.insertChunks(sourceId, null, drafts.slice(i, i + 100)));
      const used = process.cpuUsage(t);
      return used.user + used.system;
    };
    store('src_000000000010', 200); // warm-up: statements prepared, pages cached
    const small = store('src_000000000011', 200);
    const large = store('src_000000000012', 1600);
    // 8x the chunks: linear work is about 8x; trying repeat numbers one by one was 64x.
    assert.ok(large < small * 24, `8x the equal chunks cost ${(large / small).toFixed(1)}x the work`);
    const ids = index.span('src_000000000012', 0, 2000).map((c) => c.cid);
    assert.equal(ids.length, 1600);
    assert.equal(new Set(ids).size, 1600);
    index.close();
    // Distinct texts too, each file in an index of its own: a new text counts its stored repeats by
    // its hash, not by walking every chunk stored before it.
    const fresh = async (name: string, n: number) => {
      const opened = (await KbIndex.open(path.join(dir, name))).index;
      index = opened;
      store('src_000000000020', 50, false); // warm-up
      index.clearChunks('src_000000000020');
      const used = store('src_000000000021', n, false);
      opened.close();
      return used;
    };
    const distinctSmall = await fresh('distinct-small.sqlite', 400);
    const distinctLarge = await fresh('distinct-large.sqlite', 3200);
    assert.ok(distinctLarge < distinctSmall * 24, `8x the distinct chunks cost ${(distinctLarge / distinctSmall).toFixed(1)}x the work`);
  });

  it('copies the readable vectors of the file moved aside into the new index', async () => {
    const old = path.join(dir, 'old.sqlite');
    const a = (await KbIndex.open(old)).index;
    a.putVectors('emb:x', [
      { hash: textHash('one'), vec: Float32Array.of(1, 0) },
      { hash: textHash('two'), vec: Float32Array.of(0, 1) },
    ]);
    a.close();
    const b = (await KbIndex.open(path.join(dir, 'new.sqlite'))).index;
    assert.equal(salvageVectors(b.db, old), 2);
    assert.deepEqual([...(b.vectorOfHash('emb:x', textHash('two')) ?? [])], [0, 1]);
    assert.equal(salvageVectors(b.db, path.join(dir, 'missing.sqlite')), 0);
    b.close();
  });
});
