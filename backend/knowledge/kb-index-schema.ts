import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { blobVector, packVector } from './vector-bytes.js';

// The schema of `knowledge/<kb>/index.sqlite` and its versions (`PRAGMA user_version`):
// - 0: chunks were known by their SQLite rowid, which a rebuilt index, a retry or a folder re-sync
//   hands to other text: a citation stored on a message pointed at nothing, or at another passage.
// - 2: every chunk also has a stable id (`cid`) derived from its source, its file within a folder
//   and its text (plus which repeat of that text it is), so the same text gets the same id after any
//   rebuild, re-embed or re-sync. An index of version 0 is migrated in place (nothing is parsed or
//   embedded again) and its old rowids are kept in `legacy_ids`, so citations stored before the
//   upgrade still open their passage.

export const INDEX_VERSION = 2;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS sources(
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, state TEXT NOT NULL, parsed INTEGER NOT NULL DEFAULT 0,
  chunks_total INTEGER NOT NULL DEFAULT 0, size INTEGER NOT NULL DEFAULT 0, files INTEGER NOT NULL DEFAULT 0,
  error TEXT, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents(
  id INTEGER PRIMARY KEY, source_id TEXT NOT NULL, path TEXT NOT NULL, sha256 TEXT NOT NULL, size INTEGER NOT NULL,
  mtime REAL NOT NULL, UNIQUE(source_id, path));
CREATE TABLE IF NOT EXISTS chunks(
  id INTEGER PRIMARY KEY, source_id TEXT NOT NULL, doc_id INTEGER, seq INTEGER NOT NULL, hash TEXT NOT NULL,
  text TEXT NOT NULL, location TEXT NOT NULL, cid TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_by_source ON chunks(source_id, seq);
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks(doc_id);
CREATE INDEX IF NOT EXISTS chunks_by_hash ON chunks(hash);
CREATE UNIQUE INDEX IF NOT EXISTS chunks_by_cid ON chunks(cid);
CREATE TABLE IF NOT EXISTS legacy_ids(old INTEGER PRIMARY KEY, cid TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(text, content='chunks', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text); END;
CREATE TABLE IF NOT EXISTS vectors(model TEXT NOT NULL, hash TEXT NOT NULL, vec BLOB NOT NULL, q BLOB, PRIMARY KEY(model, hash));
`;

/**
 * The stable id of a chunk: its source, its file within a folder source ('' otherwise), the hash of
 * its text and `repeat` (0 for the first chunk of that text in that file, 1 for the next …).
 */
export function chunkId(sourceId: string, file: string, textHash: string, repeat: number): string {
  const h = createHash('sha256').update(`${sourceId}\0${file}\0${repeat}\0${textHash}`).digest('hex');
  return `ck_${h.slice(0, 20)}`;
}

/** Brings an index to INDEX_VERSION (throws for a newer one: it is then moved aside and rebuilt). */
export function migrate(db: DatabaseSync): void {
  const version = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
  if (version > INDEX_VERSION) throw new Error(`index version ${version} is newer than ${INDEX_VERSION}`);
  const hasChunks = db.prepare("SELECT 1 AS ok FROM sqlite_master WHERE type = 'table' AND name = 'chunks'").get() !== undefined;
  if (version === 0 && hasChunks) {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec("ALTER TABLE chunks ADD COLUMN cid TEXT NOT NULL DEFAULT ''");
      const vectorColumns = db.prepare("SELECT name FROM pragma_table_info('vectors')").all();
      if (vectorColumns.length > 0 && !vectorColumns.some((c) => c.name === 'q')) db.exec('ALTER TABLE vectors ADD COLUMN q BLOB');
      if (vectorColumns.length > 0) packMissing(db);
      const set = db.prepare('UPDATE chunks SET cid = ? WHERE id = ?');
      const repeats = new Map<string, number>();
      // In seq order within each file, as insertChunks numbers the repeats of one text.
      const rows = db
        .prepare(
          `SELECT c.id AS id, c.source_id AS source_id, c.hash AS hash, COALESCE(d.path, '') AS path
           FROM chunks c LEFT JOIN documents d ON d.id = c.doc_id ORDER BY c.source_id, c.doc_id, c.seq`,
        )
        .all();
      for (const r of rows) {
        const key = `${String(r.source_id)}\0${String(r.path)}\0${String(r.hash)}`;
        const repeat = repeats.get(key) ?? 0;
        repeats.set(key, repeat + 1);
        set.run(chunkId(String(r.source_id), String(r.path), String(r.hash), repeat), r.id as number);
      }
      db.exec(SCHEMA);
      db.exec('INSERT OR IGNORE INTO legacy_ids(old, cid) SELECT id, cid FROM chunks');
      db.exec(`PRAGMA user_version = ${INDEX_VERSION}`);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
    return;
  }
  db.exec(SCHEMA);
  if (version !== INDEX_VERSION) db.exec(`PRAGMA user_version = ${INDEX_VERSION}`);
}

/** Packs every vector stored without its packed form (migrated or salvaged ones). */
export function packMissing(db: DatabaseSync): void {
  const set = db.prepare('UPDATE vectors SET q = ? WHERE rowid = ?');
  for (const r of db.prepare('SELECT rowid AS id, vec FROM vectors WHERE q IS NULL').all())
    set.run(packVector(blobVector(r.vec as Uint8Array)), r.id as number);
}

/**
 * After a damaged index was moved aside: copies whatever vectors of it can still be read into the
 * new one (embeddings cost money; they are keyed by model and text, so they fit the rebuilt chunks).
 */
export function salvageVectors(db: DatabaseSync, aside: string): number {
  if (!existsSync(aside)) return 0; // ATTACH would create it
  try {
    db.prepare('ATTACH DATABASE ? AS damaged').run(aside);
  } catch {
    return 0;
  }
  try {
    const n = Number(
      db.prepare('INSERT OR IGNORE INTO vectors(model, hash, vec) SELECT model, hash, vec FROM damaged.vectors').run().changes,
    );
    packMissing(db);
    return n;
  } catch {
    return 0;
  } finally {
    db.exec('DETACH DATABASE damaged');
  }
}
