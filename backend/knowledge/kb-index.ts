import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { loadSqlite } from '../data/sqlite.js';
import type { ChunkDraft } from './chunker.js';
import type { ChunkLocation, SourceState } from './knowledge-api.js';
import { singleToken } from './fts-query.js';
import { chunkId, migrate, salvageVectors } from './kb-index-schema.js';
import { blobVector, packVector } from './vector-bytes.js';

// `knowledge/<kb>/index.sqlite`: sources and their job state, folder documents, chunks with an
// FTS5 external-content index, and vectors keyed by (model, text hash) so that the same text is
// never embedded twice by one model and two models' vectors never meet. Everything here can be
// rebuilt from kb.json and the stored files: a database that fails to open or check is moved
// aside and started afresh (the service then re-ingests every source), keeping the vectors that
// can still be read from it. Chunks carry a stable id (`cid`, kb-index-schema.ts) for citations.

export interface SourceRow {
  id: string;
  seq: number;
  state: SourceState;
  parsed: number;
  chunks_total: number;
  size: number;
  files: number;
  error: { code: string; message: string } | null;
  updated_at: string;
}

export interface ChunkRow {
  /** The rowid: the FTS5 and in-memory vector key, never shown (it changes on a rebuild). */
  id: number;
  /** The stable id shown as `chunk_id`. */
  cid: string;
  source_id: string;
  doc_id: number | null;
  seq: number;
  text: string;
  location: ChunkLocation;
}

export interface DocumentRow {
  id: number;
  source_id: string;
  path: string;
  sha256: string;
  size: number;
  mtime: number;
}

const SQLITE_CONSTRAINT_UNIQUE = 2067;

export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 32);
}

/** Vector bytes as stored (little-endian float32, as every platform Node runs on). */
export function vectorBlob(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

function toChunk(r: Record<string, SQLInputValue>): ChunkRow {
  return {
    id: Number(r.id),
    cid: String(r.cid),
    source_id: String(r.source_id),
    doc_id: r.doc_id === null ? null : Number(r.doc_id),
    seq: Number(r.seq),
    text: String(r.text),
    location: JSON.parse(String(r.location)) as ChunkLocation,
  };
}

export class KbIndex {
  private readonly stmts = new Map<string, StatementSync>();

  private readonly termCounts = new Map<string, number>();
  private countsAt = -1;

  private constructor(readonly db: DatabaseSync) {}

  /** Opens (or creates) the index; `rebuilt` says a damaged one was moved aside. */
  static async open(file: string): Promise<{ index: KbIndex; rebuilt: boolean }> {
    const { DatabaseSync } = await loadSqlite();
    const attempt = () => {
      const db = new DatabaseSync(file);
      try {
        db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;');
        const check = db.prepare('PRAGMA quick_check').get() as { quick_check?: string } | undefined;
        if (check && Object.values(check)[0] !== 'ok') throw new Error(`quick_check: ${String(Object.values(check)[0])}`);
        migrate(db);
        // FTS5's per-term document counts, for leaving out terms too common to rank (commonTerms).
        db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, row)');
        return db;
      } catch (err) {
        db.close();
        throw err;
      }
    };
    try {
      return { index: new KbIndex(attempt()), rebuilt: false };
    } catch {
      const aside = `${file}.damaged-${Date.now()}`;
      await fs.rename(file, aside).catch(() => undefined);
      for (const suffix of ['-wal', '-shm']) await fs.rm(file + suffix, { force: true });
      const index = new KbIndex(attempt());
      salvageVectors(index.db, aside);
      return { index, rebuilt: true };
    }
  }

  close(): void {
    this.db.close();
  }

  private q(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  tx<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      this.db.exec('COMMIT');
      return out;
    } catch (err) {
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  // Sources ------------------------------------------------------------------------------------

  private toSource(r: Record<string, SQLInputValue>): SourceRow {
    return {
      id: String(r.id),
      seq: Number(r.seq),
      state: String(r.state) as SourceState,
      parsed: Number(r.parsed),
      chunks_total: Number(r.chunks_total),
      size: Number(r.size),
      files: Number(r.files),
      error: r.error ? (JSON.parse(String(r.error)) as SourceRow['error']) : null,
      updated_at: String(r.updated_at),
    };
  }

  sources(): SourceRow[] {
    return this.q('SELECT * FROM sources ORDER BY seq')
      .all()
      .map((r) => this.toSource(r));
  }

  source(id: string): SourceRow | undefined {
    const r = this.q('SELECT * FROM sources WHERE id = ?').get(id);
    return r ? this.toSource(r) : undefined;
  }

  addSource(id: string, state: SourceState, size: number): void {
    const seq = Number((this.q('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM sources').get() as { n: number }).n);
    this.q('INSERT OR IGNORE INTO sources(id, seq, state, size, updated_at) VALUES (?, ?, ?, ?, ?)').run(
      id,
      seq,
      state,
      size,
      new Date().toISOString(),
    );
  }

  update(id: string, patch: Partial<Pick<SourceRow, 'state' | 'parsed' | 'chunks_total' | 'size' | 'files' | 'error'>>): void {
    const keys = Object.keys(patch) as (keyof typeof patch)[];
    const values = keys.map((k) => (k === 'error' ? (patch.error ? JSON.stringify(patch.error) : null) : (patch[k] as SQLInputValue)));
    const set = [...keys.map((k) => `${k} = ?`), 'updated_at = ?'].join(', ');
    this.db.prepare(`UPDATE sources SET ${set} WHERE id = ?`).run(...values, new Date().toISOString(), id);
  }

  removeSource(id: string): void {
    this.tx(() => {
      this.q('DELETE FROM chunks WHERE source_id = ?').run(id);
      this.q('DELETE FROM documents WHERE source_id = ?').run(id);
      this.q('DELETE FROM sources WHERE id = ?').run(id);
    });
  }

  /** Drops a source's chunks (before it is parsed again); vectors stay, keyed by text. */
  clearChunks(id: string): void {
    this.tx(() => {
      this.q('DELETE FROM chunks WHERE source_id = ?').run(id);
      this.q('DELETE FROM documents WHERE source_id = ?').run(id);
    });
  }

  // Documents of folder sources ------------------------------------------------------------------

  documents(sourceId: string): DocumentRow[] {
    return this.q('SELECT * FROM documents WHERE source_id = ?').all(sourceId) as unknown as DocumentRow[];
  }

  /** Replaces a document's chunks in one transaction; returns the document id. */
  putDocument(sourceId: string, doc: Omit<DocumentRow, 'id' | 'source_id'>, chunks: ChunkDraft[]): number {
    return this.tx(() => {
      const old = this.q('SELECT id FROM documents WHERE source_id = ? AND path = ?').get(sourceId, doc.path) as { id: number } | undefined;
      if (old) this.q('DELETE FROM chunks WHERE doc_id = ?').run(old.id);
      this.q('DELETE FROM documents WHERE source_id = ? AND path = ?').run(sourceId, doc.path);
      const id = Number(
        this.q('INSERT INTO documents(source_id, path, sha256, size, mtime) VALUES (?, ?, ?, ?, ?)').run(
          sourceId,
          doc.path,
          doc.sha256,
          doc.size,
          doc.mtime,
        ).lastInsertRowid,
      );
      this.insertChunks(sourceId, id, chunks);
      return id;
    });
  }

  /** A file touched but not changed: only its size and time are new. */
  putDocumentMeta(id: number, size: number, mtime: number): void {
    this.q('UPDATE documents SET size = ?, mtime = ? WHERE id = ?').run(size, mtime, id);
  }

  removeDocument(sourceId: string, path: string): void {
    this.tx(() => {
      const old = this.q('SELECT id FROM documents WHERE source_id = ? AND path = ?').get(sourceId, path) as { id: number } | undefined;
      if (!old) return;
      this.q('DELETE FROM chunks WHERE doc_id = ?').run(old.id);
      this.q('DELETE FROM documents WHERE id = ?').run(old.id);
    });
  }

  // Chunks ---------------------------------------------------------------------------------------

  /** Appends chunks after the source's last seq (call inside a transaction for atomicity). */
  insertChunks(sourceId: string, docId: number | null, chunks: ChunkDraft[]): void {
    let seq = Number((this.q('SELECT COALESCE(MAX(seq), -1) + 1 AS n FROM chunks WHERE source_id = ?').get(sourceId) as { n: number }).n);
    const file =
      docId === null
        ? ''
        : String((this.q('SELECT path FROM documents WHERE id = ?').get(docId) as { path: string } | undefined)?.path ?? '');
    const ins = this.q('INSERT INTO chunks(source_id, doc_id, seq, hash, text, location, cid) VALUES (?, ?, ?, ?, ?, ?, ?)');
    let first: number | bigint | null = null;
    let last: number | bigint = 0;
    // A text repeated in one file takes the next repeat number. Chunks of a file are only appended or
    // removed all together, so the repeats stored are 0..n-1: counted once per text, then kept here
    // (trying numbers until the unique index accepted one was quadratic in a file of equal lines).
    const nextRepeat = new Map<string, number>();
    for (const c of chunks) {
      const hash = textHash(c.text);
      const location = JSON.stringify(c.location);
      let repeat = nextRepeat.get(hash) ?? this.storedRepeats(sourceId, docId, hash);
      for (; ; repeat++) {
        try {
          const id = ins.run(sourceId, docId, seq, hash, c.text, location, chunkId(sourceId, file, hash, repeat)).lastInsertRowid;
          first ??= id;
          last = id;
          break;
        } catch (err) {
          if ((err as { errcode?: number }).errcode !== SQLITE_CONSTRAINT_UNIQUE || repeat > 1_000_000) throw err;
        }
      }
      nextRepeat.set(hash, repeat + 1);
      seq++;
    }
    // One INSERT … SELECT into the FTS index: 4× faster than a row trigger (measured), same content.
    // By rowid range: a filter on the source walked all of its chunks for every slice or document.
    if (first !== null) this.q('INSERT INTO chunks_fts(rowid, text) SELECT id, text FROM chunks WHERE id BETWEEN ? AND ?').run(first, last);
  }

  /** By the hash's index: left to itself the planner walked every chunk without a document (quadratic over a file). */
  private storedRepeats(sourceId: string, docId: number | null, hash: string): number {
    const r = this.q('SELECT COUNT(*) AS n FROM chunks INDEXED BY chunks_by_hash WHERE hash = ? AND source_id = ? AND doc_id IS ?').get(
      hash,
      sourceId,
      docId,
    );
    return Number((r as { n: number }).n);
  }

  chunkCount(sourceId?: string): number {
    const r =
      sourceId === undefined
        ? this.q('SELECT COUNT(*) AS n FROM chunks').get()
        : this.q('SELECT COUNT(*) AS n FROM chunks WHERE source_id = ?').get(sourceId);
    return Number((r as { n: number }).n);
  }

  firstChunk(sourceId: string): ChunkRow | undefined {
    const r = this.q('SELECT * FROM chunks WHERE source_id = ? ORDER BY seq LIMIT 1').get(sourceId);
    return r ? toChunk(r) : undefined;
  }

  chunks(ids: number[]): Map<number, ChunkRow> {
    const out = new Map<number, ChunkRow>();
    const get = this.q('SELECT * FROM chunks WHERE id = ?');
    for (const id of ids) {
      const r = get.get(id);
      if (r) out.set(id, toChunk(r));
    }
    return out;
  }

  /**
   * A source's chunk by its stable id; a numeric id (a citation stored before stable ids) is looked
   * up among the rowids the index had when it was migrated. Undefined: the passage is gone.
   */
  chunkByCid(sourceId: string, chunkId: string): ChunkRow | undefined {
    let cid = chunkId;
    if (/^\d{1,15}$/.test(chunkId)) {
      const legacy = this.q('SELECT cid FROM legacy_ids WHERE old = ?').get(Number(chunkId)) as { cid: string } | undefined;
      if (!legacy) return undefined;
      cid = legacy.cid;
    }
    const r = this.q('SELECT * FROM chunks WHERE cid = ? AND source_id = ?').get(cid, sourceId);
    return r ? toChunk(r) : undefined;
  }

  span(sourceId: string, from: number, to: number): ChunkRow[] {
    return this.q('SELECT * FROM chunks WHERE source_id = ? AND seq BETWEEN ? AND ? ORDER BY seq').all(sourceId, from, to).map(toChunk);
  }

  /** Chunk ids matching an FTS5 expression, best bm25 first. */
  lexical(match: string, limit: number): { id: number; bm25: number }[] {
    return this.q('SELECT rowid AS id, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s, rowid LIMIT ?')
      .all(match, limit)
      .map((r) => ({ id: Number(r.id), bm25: Number(r.s) }));
  }

  /**
   * Of the user's `terms`, those that at least half of all chunks hold, by FTS5's own counts (see
   * ftsMatch); none when no other term is known to find a passage.
   */
  commonTerms(terms: string[]): Set<string> {
    const common = new Set<string>();
    const total = this.chunkCount();
    let rankable = false;
    for (const term of terms) {
      const token = singleToken(term);
      const n = token === null ? 0 : this.termChunks(token);
      if (n > 0 && 2 * n >= total) common.add(term);
      else if (n > 0) rankable = true;
    }
    // Only when a rarer word finds passages: otherwise the common words are all the query has.
    return rankable ? common : new Set();
  }

  /** Chunks holding `token`. Counting walks the token's whole posting list ("the": 100,000 entries), so counts are kept until this connection writes again. */
  private termChunks(token: string): number {
    const changes = Number((this.q('SELECT total_changes() AS n').get() as { n: number }).n);
    if (changes !== this.countsAt) {
      this.termCounts.clear();
      this.countsAt = changes;
    }
    let n = this.termCounts.get(token);
    if (n === undefined) {
      n = Number((this.q('SELECT doc FROM temp.chunks_vocab WHERE term = ?').get(token) as { doc: number } | undefined)?.doc ?? 0);
      if (this.termCounts.size >= 4096) this.termCounts.clear();
      this.termCounts.set(token, n);
    }
    return n;
  }

  /** True when `match` finds chunk `id` (the readiness probe). */
  finds(match: string, id: number): boolean {
    return this.q('SELECT 1 AS ok FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid = ?').get(match, id) !== undefined;
  }

  // Vectors --------------------------------------------------------------------------------------

  /**
   * Chunks of a source after `afterSeq`, in order, still without a vector of `model`: a cursor, so
   * that embedding a source reads each chunk once instead of rescanning the source per batch.
   */
  unembedded(sourceId: string, model: string, afterSeq: number, limit: number): { seq: number; hash: string; text: string }[] {
    return this.q(
      `SELECT c.seq AS seq, c.hash AS hash, c.text AS text FROM chunks c WHERE c.source_id = ? AND c.seq > ?
       AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ? AND v.hash = c.hash) ORDER BY c.seq LIMIT ?`,
    )
      .all(sourceId, afterSeq, model, limit)
      .map((r) => ({ seq: Number(r.seq), hash: String(r.hash), text: String(r.text) }));
  }

  embeddedCount(sourceId: string, model: string): number {
    const r = this.q('SELECT COUNT(*) AS n FROM chunks c JOIN vectors v ON v.model = ? AND v.hash = c.hash WHERE c.source_id = ?').get(
      model,
      sourceId,
    );
    return Number((r as { n: number }).n);
  }

  putVectors(model: string, items: { hash: string; vec: Float32Array }[]): void {
    this.tx(() => {
      const ins = this.q('INSERT OR REPLACE INTO vectors(model, hash, vec, q) VALUES (?, ?, ?, ?)');
      for (const it of items) ins.run(model, it.hash, vectorBlob(it.vec), packVector(it.vec));
    });
  }

  /** Vectors of any other model go: two models' vectors are never mixed. */
  dropVectorsExcept(model: string | null): void {
    if (model === null) this.q('DELETE FROM vectors').run();
    else this.q('DELETE FROM vectors WHERE model <> ?').run(model);
  }

  /** Every (chunk id, vector) of `model`, streamed. */
  /** How many chunks have a vector of `model`: the vector index is allocated once at that size. */
  vectorCount(model: string): number {
    const r = this.q('SELECT COUNT(*) AS n FROM chunks c JOIN vectors v ON v.model = ? AND v.hash = c.hash').get(model);
    return Number(r?.n ?? 0);
  }

  /** Every chunk of `model`'s vectors, streamed: the packed form, or the float32 one where none was packed. */
  *allVectors(model: string): Generator<{ id: number; q: Uint8Array | null; vec: Uint8Array | null }> {
    for (const r of this.q(
      `SELECT c.id AS id, v.q AS q, CASE WHEN v.q IS NULL THEN v.vec END AS vec
       FROM chunks c JOIN vectors v ON v.model = ? AND v.hash = c.hash`,
    ).iterate(model)) {
      yield { id: Number(r.id), q: r.q as Uint8Array | null, vec: r.vec as Uint8Array | null };
    }
  }

  /** The float32 vectors of chunks `ids`, read by one statement (one per id cost more than the scoring). */
  vectorsOf(model: string, ids: number[]): Map<number, Float32Array> {
    const out = new Map<number, Float32Array>();
    if (ids.length === 0) return out;
    // CROSS JOIN fixes the order: ids first, then each chunk and its vector by key (left to the
    // planner, SQLite walked every vector of the model).
    const rows = this.q(
      `SELECT c.id AS id, v.vec AS vec FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value
       CROSS JOIN vectors v ON v.model = ? AND v.hash = c.hash`,
    ).all(JSON.stringify(ids), model);
    for (const r of rows) out.set(Number(r.id), blobVector(r.vec as Uint8Array));
    return out;
  }

  vectorOfHash(model: string, hash: string): Float32Array | undefined {
    const r = this.q('SELECT vec FROM vectors WHERE model = ? AND hash = ?').get(model, hash);
    return r ? blobVector(r.vec as Uint8Array) : undefined;
  }
}
