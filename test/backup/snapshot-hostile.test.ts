import assert from 'node:assert/strict';
import { cpSync, createWriteStream, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Header, ReadEntry, WriteEntryTar } from 'tar';
import { api, startPaired, tempDir, type BackendProcess } from '../helpers/backend-process.js';
import { backupsOf, craftSnapshot, manifestEntry, nodeIdOf, runCli, treeOf, type CraftedFile } from './backup-kit.js';

const MB = 1024 * 1024;

/** Tar bytes of one entry from memory. */
async function entryBytes(p: string, body: Buffer): Promise<Buffer> {
  const entry = new ReadEntry(new Header({ path: p, type: 'File', size: body.length, mode: 0o600, mtime: new Date() }));
  const writer = new WriteEntryTar(entry, { portable: true });
  const chunks: Buffer[] = [];
  writer.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => writer.on('end', () => resolve()));
  entry.write(body);
  entry.end();
  await done;
  return Buffer.concat(chunks);
}

/**
 * A decompression bomb: a few hundred KB of gzip that unpacks to `bytes` of zeros, either as one
 * entry whose header claims far more than its manifest lists, or as padding after the archive's end.
 */
async function bomb(file: string, nodeId: string, bytes: number, where: 'entry' | 'trailer'): Promise<void> {
  const small: CraftedFile = { path: 'big.bin', body: Buffer.alloc(10) };
  const gzip = createGzip({ level: 1 });
  const written = pipeline(gzip, createWriteStream(file, { mode: 0o600 }));
  gzip.write(await entryBytes('manifest.json', manifestEntry(nodeId, [], [small]).body!));
  if (where === 'entry') {
    const header = new Header({ path: 'data/big.bin', type: 'File', size: bytes, mode: 0o600, mtime: new Date() });
    header.encode();
    gzip.write(header.block!);
  } else {
    gzip.write(await entryBytes('data/big.bin', small.body));
    gzip.write(Buffer.alloc(1024));
  }
  const zeros = Buffer.alloc(MB);
  for (let sent = 0; sent < bytes; sent += MB) if (!gzip.write(zeros)) await new Promise((r) => gzip.once('drain', r));
  gzip.end();
  await written;
}

describe('hostile snapshots are refused before anything changes, on every OS by one rule', () => {
  let proc: BackendProcess;
  let credential: string;
  let dataDir: string;
  let nodeId: string;
  const work = tempDir('svc-hostile-');
  before(async () => {
    ({ proc, credential } = await startPaired());
    dataDir = proc.dataDir;
    nodeId = nodeIdOf(dataDir);
    assert.equal((await api(proc.url, 'POST', '/api/workspaces', { credential, body: { name: 'Mine' } })).status, 201);
  });
  after(async () => {
    await proc.stop();
    proc.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  const body = (s: string) => Buffer.from(s);
  const cases: [string, () => Promise<string>, RegExp][] = [
    [
      'two names differing only in letter case (made on Linux)',
      async () => {
        const f = path.join(work, 'case.tar.gz');
        await craftSnapshot(
          f,
          nodeId,
          ['skills', 'skills/a'],
          [
            { path: 'skills/a/Notes.md', body: body('one') },
            { path: 'skills/a/notes.md', body: body('two') },
          ],
        );
        return f;
      },
      /"skills\/a\/notes\.md" and "skills\/a\/Notes\.md" differ only in letter case/,
    ],
    [
      'a folder and a file of the same name',
      async () => {
        const f = path.join(work, 'dir-file.tar.gz');
        await craftSnapshot(f, nodeId, ['skills', 'skills/x'], [{ path: 'skills/x', body: body('file') }]);
        return f;
      },
      /"skills\/x" is both a folder and a file/,
    ],
    [
      'a file, then a folder under it',
      async () => {
        const f = path.join(work, 'file-then-dir.tar.gz');
        await craftSnapshot(f, nodeId, ['notes', 'notes/inner'], [{ path: 'notes', body: body('file') }]);
        return f;
      },
      /"notes" is both a folder and a file/,
    ],
    [
      'a file under a file',
      async () => {
        const f = path.join(work, 'file-under-file.tar.gz');
        await craftSnapshot(
          f,
          nodeId,
          [],
          [
            { path: 'notes', body: body('file') },
            { path: 'notes/inner.txt', body: body('under it') },
          ],
        );
        return f;
      },
      /"notes\/inner\.txt" is under "notes", which is a file/,
    ],
    [
      'a 300-character name',
      async () => {
        const f = path.join(work, 'long.tar.gz');
        await craftSnapshot(f, nodeId, ['skills'], [{ path: `skills/${'n'.repeat(300)}`, body: body('long') }]);
        return f;
      },
      /longer than 255 bytes/,
    ],
    [
      'a name Windows refuses',
      async () => {
        const f = path.join(work, 'colon.tar.gz');
        await craftSnapshot(f, nodeId, ['skills'], [{ path: 'skills/a:b', body: body('x') }]);
        return f;
      },
      /"skills\/a:b" has a character some systems refuse/,
    ],
    [
      'an entry unpacking to 200 MB under a 10-byte listing',
      async () => {
        const f = path.join(work, 'bomb.tar.gz');
        await bomb(f, nodeId, 200 * MB, 'entry');
        assert.ok(statSync(f).size < 2 * MB, 'a small file');
        return f;
      },
      /"big\.bin" holds 209715200 bytes, its manifest says 10/,
    ],
    [
      '200 MB of padding after the archive',
      async () => {
        const f = path.join(work, 'trailer.tar.gz');
        await bomb(f, nodeId, 200 * MB, 'trailer');
        return f;
      },
      /unpacks past the sizes its manifest lists/,
    ],
    [
      'zstd instead of gzip',
      async () => {
        const f = path.join(work, 'zstd.tar.zst');
        writeFileSync(f, Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.alloc(64)]));
        return f;
      },
      /only gzip snapshots are accepted/,
    ],
  ];

  it('the restore sub-command refuses each, naming the entry, with no stack trace', async () => {
    // A stopped copy of the running backend's directory (same node).
    const copy = path.join(work, 'copy');
    cpSync(dataDir, copy, { recursive: true });
    rmSync(path.join(copy, 'selfhost', 'instance.lock'));
    for (const [what, make, reason] of cases) {
      const file = await make();
      const tree = treeOf(copy);
      const listing = backupsOf(copy);
      const r = runCli(['restore', file, '-data', copy]);
      assert.equal(r.status, 1, `${what}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, reason, what);
      assert.match(r.stderr, /^error: .*nothing was changed\n$/, `${what}: one error line, no stack trace`);
      assert.deepEqual(treeOf(copy), tree, `${what}: nothing changed`);
      assert.deepEqual(backupsOf(copy), listing, `${what}: no snapshot taken, no staging left`);
    }
  });

  it('through the API each is a 422 backup_invalid naming the entry, and the service keeps serving', async () => {
    mkdirSync(path.join(dataDir, 'backups'), { recursive: true, mode: 0o700 });
    let day = 1;
    for (const [what, make, reason] of cases) {
      const name = `backup-2026-03-${String(day++).padStart(2, '0')}T00-00-00-000Z-manual.tar.gz`;
      // Each case in its own file under a snapshot's name.
      const file = await make();
      writeFileSync(path.join(dataDir, 'backups', name), readFileSync(file));
      const tree = treeOf(dataDir);
      const r = await api(proc.url, 'POST', `/api/backups/${name}/restore`, { credential });
      assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'backup_invalid');
      assert.match(r.body.error.message, reason, what);
      assert.deepEqual(treeOf(dataDir), tree, `${what}: nothing changed`);
      assert.equal(proc.exitCode, null, `${what}: the backend still runs`);
      assert.equal((await api(proc.url, 'GET', '/api/workspaces', { credential })).status, 200);
    }
  });
});
