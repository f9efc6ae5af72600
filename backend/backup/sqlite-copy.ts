import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { loadSqlite } from '../data/sqlite.js';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const SQLITE_NAME = /\.(sqlite3?|db)$/;

/** A live database's journal files: their content is in the consistent copy of the database. */
export function isSqliteCompanion(name: string): boolean {
  return /\.(sqlite3?|db)-(wal|shm|journal)$/.test(name);
}

async function isSqlite(file: string): Promise<boolean> {
  if (!SQLITE_NAME.test(file)) return false;
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length && head.equals(SQLITE_MAGIC);
  } finally {
    await handle.close();
  }
}

/**
 * A consistent copy of a SQLite database (VACUUM INTO: one transaction, so never half of a write
 * the live database is making), beside `near`; null when `file` is not a SQLite database.
 */
export async function sqliteCopy(file: string, near: string): Promise<string | null> {
  if (!(await isSqlite(file))) return null;
  const { DatabaseSync } = await loadSqlite();
  const copy = `${near}.${randomBytes(4).toString('hex')}.sqlite`;
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    db.prepare('VACUUM INTO ?').run(copy);
  } finally {
    db.close();
  }
  await fs.chmod(copy, 0o600);
  return copy;
}
