import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { SerialQueue } from '../data/serial-queue.js';
import { loadSqlite } from '../data/sqlite.js';
import type { Logger } from '../log/logger.js';
import type { SearchHit } from './chat-api.js';
import type { LogRecord } from './chat-types.js';
import { forEachLine } from './log-lines.js';
import { matchQuery, searchableOf, searchTerms, snippetOf } from './search-text.js';

// 2: a prefix index for three-letter prefixes (a query of 16 of them took 0.2-0.6 s on 30,000 messages).
const VERSION = '2';
const BATCH = 500;
const MAX_LINE = 64 * 1024 * 1024;
/** Matches ranked by bm25 at most (the most recently indexed); about 30 ms for 16 terms. */
const RANK_WINDOW = 2000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions(workspace_id TEXT NOT NULL, session_id TEXT NOT NULL, log_bytes INTEGER NOT NULL,
  PRIMARY KEY(workspace_id, session_id));
CREATE TABLE IF NOT EXISTS msgs(id INTEGER PRIMARY KEY, workspace_id TEXT NOT NULL, session_id TEXT NOT NULL,
  message_id TEXT NOT NULL, created_at TEXT NOT NULL, body TEXT NOT NULL, UNIQUE(workspace_id, session_id, message_id));
CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(terms, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='3');
`;

export interface SearchPage {
  hits: SearchHit[];
  has_more: boolean;
  /** True while the index is still catching up with the logs (after a rebuild): hits may be missing. */
  indexing: boolean;
  terms: string[];
  terms_dropped: number;
}

/**
 * The persistent full-text index of every session (`search-index.sqlite` in the data directory):
 * derived from the logs, updated as messages are stored, rebuilt when missing or damaged. Losing it
 * loses nothing. SQLite FTS5 through node:sqlite: ranked (bm25), paged, no native addon.
 */
export class SearchIndex {
  private readonly queue = new SerialQueue();
  private catching: Promise<boolean> | null = null;
  private readonly st: Record<'logBytes' | 'setBytes' | 'find' | 'insert' | 'update' | 'docDel' | 'docAdd' | 'hit', StatementSync>;

  private constructor(
    private db: DatabaseSync,
    readonly file: string,
    private readonly sessionsRoot: string,
    private readonly logger: Logger,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.st = {
      logBytes: p('SELECT log_bytes FROM sessions WHERE workspace_id = ? AND session_id = ?'),
      setBytes: p('INSERT OR REPLACE INTO sessions(workspace_id, session_id, log_bytes) VALUES (?, ?, ?)'),
      find: p('SELECT id FROM msgs WHERE workspace_id = ? AND session_id = ? AND message_id = ?'),
      insert: p('INSERT INTO msgs(workspace_id, session_id, message_id, created_at, body) VALUES (?, ?, ?, ?, ?)'),
      update: p('UPDATE msgs SET body = ?, created_at = ? WHERE id = ?'),
      docDel: p('DELETE FROM docs WHERE rowid = ?'),
      docAdd: p('INSERT INTO docs(rowid, terms) VALUES (?, ?)'),
      hit: p('SELECT workspace_id, session_id, message_id, body FROM msgs WHERE id = ?'),
    };
  }

  /** Opens the index; a damaged or foreign file is replaced by an empty one, filled by `catchUp`. */
  static async open(file: string, workspacesDir: string, logger: Logger): Promise<SearchIndex> {
    const { DatabaseSync } = await loadSqlite();
    const create = async () => {
      // Created 0600 first: SQLite gives its -wal and -shm files the database file's mode.
      await fs.writeFile(file, '', { flag: 'a', mode: 0o600 });
      const db = new DatabaseSync(file);
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      db.exec(SCHEMA);
      const version = db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string } | undefined;
      if (!version) db.prepare("INSERT INTO meta(key, value) VALUES ('version', ?)").run(VERSION);
      else if (version.value !== VERSION) throw new Error(`index version ${version.value}, expected ${VERSION}`);
      return db;
    };
    let db: DatabaseSync;
    try {
      db = await create();
    } catch (err) {
      logger.info(`search: rebuilding ${path.basename(file)} (${(err as Error).message})`);
      await Promise.all(['', '-wal', '-shm'].map((s) => fs.rm(`${file}${s}`, { force: true })));
      db = await create();
    }
    return new SearchIndex(db, file, workspacesDir, logger);
  }

  /** Indexes what was appended to a session's log since the last call (a rewritten log from the start). */
  update(workspaceId: string, sessionId: string): Promise<void> {
    return this.queue.run(`${workspaceId}/${sessionId}`, async () => {
      const logFile = path.join(this.sessionsRoot, workspaceId, 'sessions', sessionId, 'events.jsonl');
      const size = await fs.stat(logFile).then(
        (st) => st.size,
        () => -1,
      );
      if (size < 0) return this.removeSession(workspaceId, sessionId);
      const row = this.st.logBytes.get(workspaceId, sessionId) as { log_bytes: number } | undefined;
      let from = row?.log_bytes ?? 0;
      if (from > size) {
        this.removeSession(workspaceId, sessionId);
        from = 0;
      }
      if (from === size && row) return;
      let batch: LogRecord[] = [];
      const flush = () => {
        if (batch.length > 0) this.store(workspaceId, sessionId, batch);
        batch = [];
      };
      const end = await forEachLine(
        logFile,
        from,
        size,
        (line) => {
          if (!line.full || line.lastByte !== 0x7d) return;
          const head = line.full.subarray(0, 24).toString('latin1');
          if (!head.startsWith('{"t":"message"') && !head.startsWith('{"t":"compaction"')) return;
          try {
            batch.push(JSON.parse(line.full.toString('utf8')) as LogRecord);
          } catch {
            return; // a torn line: skipped, as everywhere
          }
          if (batch.length >= BATCH) flush();
        },
        MAX_LINE,
      );
      flush();
      this.st.setBytes.run(workspaceId, sessionId, end);
    });
  }

  private store(workspaceId: string, sessionId: string, records: LogRecord[]): void {
    this.db.exec('BEGIN');
    try {
      for (const r of records) {
        const doc = searchableOf(r);
        if (!doc) continue;
        const found = this.st.find.get(workspaceId, sessionId, doc.id) as { id: number } | undefined;
        let rowid: number;
        if (found) {
          rowid = found.id;
          this.st.update.run(doc.text, doc.created_at, rowid);
          this.st.docDel.run(rowid);
        } else rowid = Number(this.st.insert.run(workspaceId, sessionId, doc.id, doc.created_at, doc.text).lastInsertRowid);
        this.st.docAdd.run(rowid, searchTerms(doc.text));
      }
      this.db.exec('COMMIT');
    } catch (err) {
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  removeSession(workspaceId: string, sessionId: string): void {
    this.remove('workspace_id = ? AND session_id = ?', [workspaceId, sessionId]);
  }

  removeWorkspace(workspaceId: string): void {
    this.remove('workspace_id = ?', [workspaceId]);
  }

  private remove(where: string, args: string[]): void {
    this.db.exec('BEGIN');
    try {
      this.db.prepare(`DELETE FROM docs WHERE rowid IN (SELECT id FROM msgs WHERE ${where})`).run(...args);
      this.db.prepare(`DELETE FROM msgs WHERE ${where}`).run(...args);
      this.db.prepare(`DELETE FROM sessions WHERE ${where}`).run(...args);
      this.db.exec('COMMIT');
    } catch (err) {
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  /** Brings every session up to date (at start: after a rebuild, or logs changed while stopped), in the background; false when it failed. */
  catchUp(): Promise<boolean> {
    this.catching ??= this.walk()
      .then(() => true)
      .catch((err: Error) => {
        this.logger.error(`search: indexing the history failed: ${err.message}`);
        return false;
      })
      .finally(() => {
        this.catching = null;
      });
    return this.catching;
  }

  /** One workspace's sessions brought up to date (its folder changed while the backend ran). */
  async catchUpWorkspace(workspaceId: string): Promise<void> {
    await this.walk(workspaceId);
  }

  private async walk(only?: string): Promise<void> {
    const seen = new Set<string>();
    const workspaces = only ? [only] : await fs.readdir(this.sessionsRoot).catch(() => [] as string[]);
    for (const ws of workspaces) {
      const dir = path.join(this.sessionsRoot, ws, 'sessions');
      for (const sid of await fs.readdir(dir).catch(() => [] as string[])) {
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(sid)) continue;
        seen.add(`${ws}/${sid}`);
        await this.update(ws, sid);
      }
    }
    if (only) return;
    const known = this.db.prepare('SELECT workspace_id, session_id FROM sessions').all() as { workspace_id: string; session_id: string }[];
    for (const k of known) if (!seen.has(`${k.workspace_id}/${k.session_id}`)) this.removeSession(k.workspace_id, k.session_id);
  }

  /**
   * Ranked hits (bm25, then newest), `limit` from `offset`, optionally in one workspace. Ranking is
   * what costs (bm25 for every match: 0.4 s for 16 common words over 30,000 messages), so only the
   * RANK_WINDOW most recently indexed matches are ranked; a query matching more pages on past them
   * newest first. Finding the matches in rowid order stops at the window: the work stays bounded.
   */
  search(q: string, options: { workspaceId?: string; limit: number; offset: number }): SearchPage {
    const { match, terms, dropped } = matchQuery(q);
    const indexing = this.catching !== null;
    const cut = { terms, terms_dropped: dropped };
    if (!match) return { hits: [], has_more: false, indexing, ...cut };
    const filter = options.workspaceId ? [options.workspaceId] : [];
    const where = `docs MATCH ? ${options.workspaceId ? 'AND m.workspace_id = ?' : ''}`;
    const want = options.limit + 1;
    const rows = [] as { id: number }[];
    if (options.offset < RANK_WINDOW)
      rows.push(
        ...(this.db
          .prepare(
            `SELECT w.id FROM (SELECT m.id, m.created_at, bm25(docs) AS score FROM docs JOIN msgs m ON m.id = docs.rowid
             WHERE ${where} ORDER BY docs.rowid DESC LIMIT ${RANK_WINDOW}) w ORDER BY w.score, w.created_at DESC LIMIT ? OFFSET ?`,
          )
          .all(match, ...filter, want, options.offset) as { id: number }[]),
      );
    if (rows.length < want)
      rows.push(
        ...(this.db
          .prepare(`SELECT m.id FROM docs JOIN msgs m ON m.id = docs.rowid WHERE ${where} ORDER BY docs.rowid DESC LIMIT ? OFFSET ?`)
          .all(match, ...filter, want - rows.length, Math.max(RANK_WINDOW, options.offset)) as { id: number }[]),
      );
    const hits = rows.slice(0, options.limit).map(({ id }) => {
      const r = this.st.hit.get(id) as { workspace_id: string; session_id: string; message_id: string; body: string };
      return { workspace_id: r.workspace_id, session_id: r.session_id, message_id: r.message_id, snippet: snippetOf(r.body, q) };
    });
    return { hits, has_more: rows.length > options.limit, indexing, ...cut };
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      // already closed
    }
  }
}
