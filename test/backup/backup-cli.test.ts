import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { api, BackendProcess, startPaired, tempDir } from '../helpers/backend-process.js';
import { backupsOf, packEntries, readEntries, runCli, treeOf } from './backup-kit.js';

/** A data directory the real backend wrote (workspace, skill, pairing), plus a binary session file. */
async function realDataDir(procs: BackendProcess[]): Promise<string> {
  const { proc, credential } = await startPaired();
  procs.push(proc);
  const ws = await api(proc.url, 'POST', '/api/workspaces', { credential, body: { name: 'Research' } });
  assert.equal(ws.status, 201, JSON.stringify(ws.body));
  const skill = await api(proc.url, 'POST', '/api/skills', {
    credential,
    body: { name: 'notes', content: '---\nname: notes\ndescription: Take notes\n---\nWrite them down.\n' },
  });
  assert.equal(skill.status, 201, JSON.stringify(skill.body));
  await proc.stop();
  const sessions = path.join(proc.dataDir, 'workspaces', ws.body.id as string, 'sessions');
  mkdirSync(sessions, { recursive: true });
  writeFileSync(path.join(sessions, 'binary.bin'), Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256)));
  mkdirSync(path.join(proc.dataDir, 'workspaces', 'empty-folder'));
  // Several files of a few hundred KB (many archive blocks each) and a path past tar's 100-character
  // field (a pax header): an archive that lost or reordered an entry would fail the tree comparison.
  for (let i = 0; i < 6; i++) writeFileSync(path.join(sessions, `part-${i}.bin`), randomBytes(300_000 + i * 7));
  const deep = path.join(sessions, 'a-rather-long-folder-name-for-attachments', 'another-long-folder-name-inside-it');
  mkdirSync(deep, { recursive: true });
  writeFileSync(path.join(deep, 'a-file-name-that-takes-the-path-well-past-one-hundred-characters.txt'), 'deep\n');
  return proc.dataDir;
}

function onlySnapshot(dataDir: string, kind: string): string {
  const names = backupsOf(dataDir).filter((n) => n.endsWith(`-${kind}.tar.gz`));
  assert.equal(names.length, 1, `one ${kind} snapshot in ${backupsOf(dataDir).join(', ')}`);
  return path.join(dataDir, 'backups', names[0]);
}

describe('backup and restore sub-commands', () => {
  const procs: BackendProcess[] = [];
  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    for (const p of procs) p.cleanup();
  });

  it('restore brings back the exact tree the backup saw, after saving the state it replaces', async () => {
    const dataDir = await realDataDir(procs);
    const before = treeOf(dataDir);
    const made = runCli(['backup', '-data', dataDir]);
    assert.equal(made.status, 0, made.stderr);
    const snapshot = onlySnapshot(dataDir, 'manual');
    assert.match(made.stdout, new RegExp(`backup written: ${snapshot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`));
    assert.equal(statSync(snapshot).mode & 0o777, 0o600, 'snapshot is 0600');
    assert.equal(statSync(path.join(dataDir, 'backups')).mode & 0o777, 0o700, 'backups/ is 0700');

    // The user loses things: a skill edited, the workspace index removed, a stray file added.
    writeFileSync(path.join(dataDir, 'skills', 'notes', 'SKILL.md'), 'overwritten\n');
    rmSync(path.join(dataDir, 'workspaces.json'));
    writeFileSync(path.join(dataDir, 'stray.txt'), 'not in the backup\n');
    const damaged = treeOf(dataDir);

    const restored = runCli(['restore', snapshot, '-data', dataDir]);
    assert.equal(restored.status, 0, restored.stderr);
    assert.deepEqual(treeOf(dataDir), before, 'byte-identical files, same modes, same folders');
    const safety = onlySnapshot(dataDir, 'pre-restore');
    assert.match(restored.stdout, /state before the restore saved as .*pre-restore\.tar\.gz/);

    // The snapshot taken first holds the state the restore replaced; restoring it by name undoes the restore.
    const undo = runCli(['restore', path.basename(safety), '-data', dataDir]);
    assert.equal(undo.status, 0, undo.stderr);
    assert.deepEqual(treeOf(dataDir), damaged);
    assert.deepEqual(
      backupsOf(dataDir).filter((n) => n.startsWith('.')),
      [],
      'no staging folder left behind',
    );
  });

  it('a damaged snapshot is refused before anything changes', async () => {
    const dataDir = await realDataDir(procs);
    assert.equal(runCli(['backup', '-data', dataDir]).status, 0);
    const good = onlySnapshot(dataDir, 'manual');
    writeFileSync(path.join(dataDir, 'after-backup.txt'), 'written after the backup\n');
    const tree = treeOf(dataDir);
    const work = tempDir('svc-bad-snap-');

    // 1. Bytes flipped in the compressed stream.
    const flipped = path.join(work, 'flipped.tar.gz');
    const bytes = readFileSync(good);
    for (let i = 0; i < 8; i++) bytes[Math.floor(bytes.length / 2) + i] ^= 0xff;
    writeFileSync(flipped, bytes);
    // 2. Cut short.
    const truncated = path.join(work, 'truncated.tar.gz');
    writeFileSync(truncated, readFileSync(good).subarray(0, Math.floor(bytes.length * 0.6)));
    // 3. A well-formed archive whose file no longer matches the manifest's checksum.
    const entries = await readEntries(good);
    const target = entries.find((e) => e.path === 'data/skills/notes/SKILL.md');
    assert.ok(target?.body);
    const tampered = path.join(work, 'tampered.tar.gz');
    await packEntries(
      tampered,
      entries.map((e) => (e === target ? { ...e, body: Buffer.from(target.body!.toString().replace('Write', 'Erase')) } : e)),
    );
    // 4. Hostile: a path out of the data directory, and a symbolic link.
    const manifest = entries.find((e) => e.path === 'manifest.json')!;
    const escape = path.join(work, 'escape.tar.gz');
    await packEntries(escape, [manifest, { path: 'data/../../escaped.txt', body: Buffer.from('x') }]);
    const link = path.join(work, 'link.tar.gz');
    await packEntries(link, [manifest, { path: 'data/config.yaml', type: 'SymbolicLink', linkpath: '/etc/passwd' }]);
    // 5. Not a snapshot at all.
    const other = path.join(work, 'other.tar.gz');
    await packEntries(other, [{ path: 'notes.txt', body: Buffer.from('hello') }]);

    const cases: [string, RegExp][] = [
      [flipped, /damaged/],
      [truncated, /damaged/],
      [tampered, /SKILL\.md" fails its checksum/],
      [escape, /unsafe path/],
      [link, /not a plain file/],
      [other, /has no manifest\.json \(not a backup of this service\)/],
      [path.join(work, 'missing.tar.gz'), /cannot read/],
    ];
    const listing = backupsOf(dataDir);
    for (const [file, reason] of cases) {
      const r = runCli(['restore', file, '-data', dataDir]);
      assert.equal(r.status, 1, `${path.basename(file)}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, reason, path.basename(file));
      assert.match(r.stderr, /nothing was changed/);
      assert.deepEqual(treeOf(dataDir), tree, `${path.basename(file)} changed nothing`);
      assert.deepEqual(backupsOf(dataDir), listing, `${path.basename(file)}: no snapshot taken, no staging left`);
    }
    assert.throws(() => statSync(path.join(dataDir, '..', '..', 'escaped.txt')));
    rmSync(work, { recursive: true, force: true });
  });

  it("a snapshot of another node needs -foreign, which brings its content and keeps this node's identity", async () => {
    const theirs = await realDataDir(procs);
    assert.equal(runCli(['backup', '-data', theirs]).status, 0);
    const snapshot = onlySnapshot(theirs, 'manual');
    const theirContent = contentOf(treeOf(theirs));
    const mine = await realDataDir(procs);
    const myIdentity = readFileSync(path.join(mine, 'selfhost', 'pairing.json'), 'utf8');
    const tree = treeOf(mine);

    const refused = runCli(['restore', snapshot, '-data', mine]);
    assert.equal(refused.status, 1, refused.stdout);
    assert.match(
      refused.stderr,
      /was taken on another node .*Add -foreign.*keeps this node's identity, paired devices.*nothing was changed/,
    );
    assert.deepEqual(treeOf(mine), tree);

    const restored = runCli(['restore', snapshot, '-foreign', '-data', mine]);
    assert.equal(restored.status, 0, restored.stderr);
    assert.match(
      restored.stdout,
      /restoring a snapshot of another node: it brings config, profiles, workspaces, sessions, attachments, skills and knowledge; it keeps this node's identity/,
    );
    assert.deepEqual(contentOf(treeOf(mine)), theirContent, 'their content');
    assert.equal(readFileSync(path.join(mine, 'selfhost', 'pairing.json'), 'utf8'), myIdentity, 'my identity and devices');
  });

  it('restore refuses while the service runs on the directory', async () => {
    const dataDir = await realDataDir(procs);
    assert.equal(runCli(['backup', '-data', dataDir]).status, 0);
    const snapshot = onlySnapshot(dataDir, 'manual');
    const proc = await BackendProcess.start({ dataDir });
    procs.push(proc);
    // The start-up work (the search index catching up, which writes search-index.sqlite) is over:
    // from here on only the refused restore could change the tree.
    await proc.waitForLine(/^search: index up to date$/, 30_000);
    const tree = treeOf(dataDir);
    const r = runCli(['restore', snapshot, '-data', dataDir]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`the service is running on .* \\(pid ${proc.child.pid}\\); stop it first`));
    assert.deepEqual(treeOf(dataDir), tree);
    // `backup` works while it runs (a consistent copy of each file).
    assert.equal(runCli(['backup', '-data', dataDir]).status, 0);
  });

  it('restore without a file is a usage error', () => {
    const r = runCli(['restore']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /restore needs the snapshot: restore FILE/);
  });

  it('daily snapshots: one soon after start when none is a day old, 7 kept, manual ones never pruned', async () => {
    const dataDir = await realDataDir(procs);
    assert.equal(runCli(['backup', '-data', dataDir]).status, 0);
    const manual = onlySnapshot(dataDir, 'manual');
    // Eight old dailies (two days apart) and an old manual one, copies of a real snapshot.
    const old: string[] = [];
    for (let i = 0; i < 8; i++) {
      const day = new Date(Date.UTC(2026, 0, 1 + 2 * i, 3, 0, 0));
      const name = `backup-${day.toISOString().replace(/[:.]/g, '-')}-daily.tar.gz`;
      copyFileSync(manual, path.join(dataDir, 'backups', name));
      old.push(name);
    }
    const oldManual = 'backup-2025-06-01T00-00-00-000Z-manual.tar.gz';
    copyFileSync(manual, path.join(dataDir, 'backups', oldManual));

    const proc = await BackendProcess.start({ dataDir, env: { SERVICE_BACKUP_FIRST_CHECK_MS: '50' } });
    procs.push(proc);
    const line = await proc.waitForLine(/^daily backup written: backups\/(backup-\S+-daily\.tar\.gz) \(\d+ bytes\)$/, 15_000);
    const dailies = backupsOf(dataDir).filter((n) => n.endsWith('-daily.tar.gz'));
    assert.equal(dailies.length, 7);
    assert.ok(dailies.includes(line[1]), 'the new one is kept');
    assert.deepEqual(
      dailies.filter((n) => n !== line[1]),
      old.slice(2),
      'the two oldest are gone',
    );
    assert.ok(backupsOf(dataDir).includes(oldManual) && backupsOf(dataDir).includes(path.basename(manual)));
  });
});

/** The tree without `selfhost/` (identity and trust state, which a restore never touches). */
function contentOf(tree: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tree).filter(([k]) => !k.startsWith('selfhost/')));
}
