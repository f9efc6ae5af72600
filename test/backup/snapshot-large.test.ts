import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { tempDir } from '../helpers/backend-process.js';
import { readEntries, runCli } from './backup-kit.js';

/** A data directory of one node, made by hand (no service running on it). */
function dataDirOf(root: string, name: string): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'selfhost'), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(dir, 'selfhost', 'pairing.json'), JSON.stringify({ node_id: 'node-large-test' }), { mode: 0o600 });
  mkdirSync(path.join(dir, 'workspaces', 'w1', 'attachments'), { recursive: true });
  return dir;
}

function snapshotIn(dir: string): string {
  const names = readdirSync(path.join(dir, 'backups')).filter((n) => n.endsWith('-manual.tar.gz'));
  assert.equal(names.length, 1);
  return path.join(dir, 'backups', names[0]);
}

function readAt(file: string, at: number, n: number): string {
  const b = Buffer.alloc(n);
  const fd = openSync(file, 'r');
  try {
    return b.subarray(0, readSync(fd, b, 0, n, at)).toString();
  } finally {
    closeSync(fd);
  }
}

describe('snapshots of large files and databases', () => {
  const root = tempDir('svc-large-');
  after(() => rmSync(root, { recursive: true, force: true }));

  it('a 2.2 GB file (sparse) is snapshotted and restored whole, and stays sparse', () => {
    const dir = dataDirOf(root, 'big');
    const big = path.join(dir, 'workspaces', 'w1', 'attachments', 'big.bin');
    const size = 2_200_000_000;
    const fd = openSync(big, 'w', 0o600);
    ftruncateSync(fd, size);
    // Marks at the start, past 2 GiB and at the end: a restore that cut or shifted the file loses them.
    writeSync(fd, Buffer.from('start'), 0, 5, 0);
    writeSync(fd, Buffer.from('past-2GiB'), 0, 9, 2 ** 31 + 12345);
    writeSync(fd, Buffer.from('end'), 0, 3, size - 3);
    closeSync(fd);
    try {
      const made = runCli(['backup', '-data', dir], {}, 600_000);
      assert.equal(made.status, 0, made.stderr);
      const snapshot = snapshotIn(dir);
      assert.ok(statSync(snapshot).size < 50 * 1024 * 1024, 'zeros compress');

      rmSync(big);
      const restored = runCli(['restore', snapshot, '-data', dir], {}, 600_000);
      assert.equal(restored.status, 0, restored.stderr);
      const stat = statSync(big);
      assert.equal(stat.size, size);
      assert.ok(stat.blocks * 512 < 64 * 1024 * 1024, 'the restored file stays sparse');
      assert.equal(readAt(big, 0, 5), 'start');
      assert.equal(readAt(big, 2 ** 31 + 12345, 9), 'past-2GiB');
      assert.equal(readAt(big, size - 3, 3), 'end');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a live SQLite database is copied consistently (its WAL included); the derived search index is left out', async () => {
    const dir = dataDirOf(root, 'db');
    mkdirSync(path.join(dir, 'knowledge'));
    const dbFile = path.join(dir, 'knowledge', 'kb.sqlite');
    const db = new DatabaseSync(dbFile);
    db.exec('PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE notes(text TEXT);');
    for (let i = 0; i < 200; i++) db.prepare('INSERT INTO notes VALUES (?)').run(`note ${i}`);
    // Open, the rows still only in kb.sqlite-wal: a byte copy of kb.sqlite alone would lose them.
    assert.ok(statSync(`${dbFile}-wal`).size > 0);
    const index = new DatabaseSync(path.join(dir, 'search-index.sqlite'));
    index.exec('PRAGMA journal_mode = WAL; CREATE TABLE t(x);');
    try {
      const made = runCli(['backup', '-data', dir]);
      assert.equal(made.status, 0, made.stderr);
      const snapshot = snapshotIn(dir);
      const names = (await readEntries(snapshot)).map((e) => e.path);
      assert.ok(names.includes('data/knowledge/kb.sqlite'));
      assert.deepEqual(
        names.filter((n) => /search-index|-wal$|-shm$/.test(n)),
        [],
        'no derived index, no journal files',
      );
      db.close();
      index.close();
      rmSync(path.join(dir, 'knowledge'), { recursive: true });
      const restored = runCli(['restore', snapshot, '-data', dir]);
      assert.equal(restored.status, 0, restored.stderr);
      const back = new DatabaseSync(dbFile, { readOnly: true });
      assert.equal((back.prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n, 200);
      back.close();
    } finally {
      if (db.isOpen) db.close();
      if (index.isOpen) index.close();
    }
  });
});
