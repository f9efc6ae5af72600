import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { api, startPaired, type BackendProcess } from '../helpers/backend-process.js';
import { backupsOf, readEntries, treeOf } from './backup-kit.js';

describe('backups through the API', () => {
  const procs: BackendProcess[] = [];
  after(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    for (const p of procs) p.cleanup();
  });

  it('needs the credential', async () => {
    const { proc } = await startPaired();
    procs.push(proc);
    for (const [method, p] of [
      ['GET', '/api/backups'],
      ['POST', '/api/backups'],
      ['POST', '/api/backups/x/restore'],
    ]) {
      assert.equal((await api(proc.url, method, p)).status, 401, `${method} ${p}`);
    }
  });

  it('takes, lists and deletes snapshots; bad kinds and names are named', async () => {
    const { proc, credential } = await startPaired();
    procs.push(proc);
    const made = await api(proc.url, 'POST', '/api/backups', { credential, body: {} });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.kind, 'manual');
    assert.equal(statSync(path.join(proc.dataDir, 'backups', made.body.name)).mode & 0o777, 0o600);
    const update = await api(proc.url, 'POST', '/api/backups', { credential, body: { kind: 'pre-update' } });
    assert.equal(update.body.kind, 'pre-update');
    const list = await api(proc.url, 'GET', '/api/backups', { credential });
    assert.equal(list.status, 200);
    assert.equal(list.body.dir, path.join(proc.dataDir, 'backups'));
    assert.deepEqual(
      list.body.backups.map((b: { name: string }) => b.name),
      [update.body.name, made.body.name],
      'newest first',
    );
    assert.ok(list.body.backups.every((b: { size_bytes: number }) => b.size_bytes > 100));

    const bad = await api(proc.url, 'POST', '/api/backups', { credential, body: { kind: 'daily' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'kind');
    const traversal = await api(proc.url, 'DELETE', `/api/backups/${encodeURIComponent('../config.yaml')}`, { credential });
    assert.equal(traversal.status, 404);
    assert.ok(statSync(path.join(proc.dataDir, 'config.yaml')).isFile());

    assert.equal((await api(proc.url, 'DELETE', `/api/backups/${made.body.name}`, { credential })).status, 204);
    assert.deepEqual(backupsOf(proc.dataDir), [update.body.name]);
  });

  it('restore: a damaged snapshot is a 422 with nothing changed; a good one restarts on the restored content, devices as they are now', async () => {
    const { proc, credential } = await startPaired();
    procs.push(proc);
    const join = async (name: string) => {
      const invite = await api(proc.url, 'POST', '/api/selfhost/devices/invite', { credential, body: { name } });
      assert.equal(invite.status, 200, JSON.stringify(invite.body));
      const joined = await api(proc.url, 'POST', '/api/pairing/join', { body: { invite_code: invite.body.code, device_name: name } });
      assert.equal(joined.status, 200, JSON.stringify(joined.body));
      return joined.body as { credential: string; device_id: string };
    };
    const revokedLater = await join('Lost phone');
    const kept = await api(proc.url, 'POST', '/api/workspaces', { credential, body: { name: 'Kept' } });
    assert.equal(kept.status, 201);
    const snap = await api(proc.url, 'POST', '/api/backups', { credential, body: {} });
    const entries = (await readEntries(path.join(proc.dataDir, 'backups', snap.body.name))).map((e) => e.path);
    assert.equal(entries[0], 'manifest.json', 'the manifest comes first');
    assert.deepEqual(
      entries.filter((p) => p.startsWith('data/selfhost') || p.startsWith('data/search-index')),
      [],
      'no identity, credentials or derived index in a snapshot',
    );
    const contentBefore = contentOf(treeOf(proc.dataDir));
    const later = await api(proc.url, 'POST', '/api/workspaces', { credential, body: { name: 'Made after the backup' } });
    assert.equal(later.status, 201);
    // After the snapshot: a device revoked, another paired. The restore must undo neither.
    assert.equal((await api(proc.url, 'DELETE', `/api/selfhost/devices/${revokedLater.device_id}`, { credential })).status, 204);
    const pairedLater = await join('New laptop');

    // A copy whose data no longer matches its checksum, under a snapshot's name. Not "a byte in the
    // middle": a snapshot is several gzip members, and the middle byte sometimes fell on a member
    // header's time or OS byte, which no checksum covers and which leaves the content intact (the
    // restore of such a copy is right). The last member's CRC-32 always covers the data.
    const bytes = readFileSync(path.join(proc.dataDir, 'backups', snap.body.name));
    bytes[bytes.length - 8] ^= 0xff;
    const badName = 'backup-2026-01-01T00-00-00-000Z-manual.tar.gz';
    writeFileSync(path.join(proc.dataDir, 'backups', badName), bytes);
    const current = treeOf(proc.dataDir);
    const listing = backupsOf(proc.dataDir);
    const refused = await api(proc.url, 'POST', `/api/backups/${badName}/restore`, { credential });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error.code, 'backup_invalid');
    assert.match(refused.body.error.message, /damaged.*nothing was changed/);
    assert.deepEqual(treeOf(proc.dataDir), current);
    assert.deepEqual(backupsOf(proc.dataDir), listing);
    assert.equal(
      (await api(proc.url, 'POST', '/api/backups/backup-2026-01-02T00-00-00-000Z-manual.tar.gz/restore', { credential })).status,
      404,
    );

    const listeningLines = proc.lines.length;
    const restore = await api(proc.url, 'POST', `/api/backups/${snap.body.name}/restore`, { credential });
    assert.equal(restore.status, 202, JSON.stringify(restore.body));
    assert.equal(restore.body.safety_backup.kind, 'pre-restore');
    await proc.waitForLine(/^backup restored; starting again$/, 15_000, listeningLines);
    await proc.waitForLine(new RegExp(`^listening on ${proc.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`), 15_000, listeningLines);
    assert.equal(proc.exitCode, null, 'the same process serves again');

    // The content as it was at the backup.
    const names = (await api(proc.url, 'GET', '/api/workspaces', { credential })).body.workspaces.map((w: { name: string }) => w.name);
    assert.ok(names.includes('Kept'));
    assert.ok(!names.includes('Made after the backup'));
    assert.deepEqual(contentOf(treeOf(proc.dataDir)), contentBefore);
    // The devices as they are now: the revoked one stays out, the later one stays in.
    assert.equal((await api(proc.url, 'GET', '/api/workspaces', { credential: revokedLater.credential })).status, 401);
    assert.equal((await api(proc.url, 'GET', '/api/workspaces', { credential: pairedLater.credential })).status, 200);
    // The derived search index is rebuilt from the restored logs.
    const search = await api(proc.url, 'GET', '/api/search?q=anything', { credential });
    assert.equal(search.status, 200, JSON.stringify(search.body));
    // The state the restore replaced is in the safety snapshot.
    assert.ok(backupsOf(proc.dataDir).includes(restore.body.safety_backup.name));
    // Still stops cleanly on a signal after the restart.
    assert.equal(await proc.stop(), 0);
  });

  it('the restart after a restore keeps the port: a process trying to bind it meanwhile never gets it', async () => {
    const { proc, credential } = await startPaired();
    procs.push(proc);
    const snap = await api(proc.url, 'POST', '/api/backups', { credential, body: {} });
    assert.equal(snap.status, 201);
    const port = Number(new URL(proc.url).port);
    // The squatter: binds the port the moment it is free (as a local process after the credential would).
    let attempts = 0;
    let took = false;
    let squatting = true;
    const squat = (): void => {
      if (!squatting) return;
      attempts++;
      const s = net.createServer();
      s.once('error', () => setImmediate(squat));
      s.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
        took = true;
        s.close();
      });
    };
    const lines = proc.lines.length;
    squat();
    const restore = await api(proc.url, 'POST', `/api/backups/${snap.body.name}/restore`, { credential });
    assert.equal(restore.status, 202, JSON.stringify(restore.body));
    await proc.waitForLine(/^backup restored; starting again$/, 15_000, lines);
    await proc.waitForLine(/^listening on /, 15_000, lines);
    squatting = false;
    assert.ok(attempts > 1, 'the squatter kept trying through the restart');
    assert.equal(took, false, 'the port was never free');
    assert.equal(proc.exitCode, null);
    assert.equal((await api(proc.url, 'GET', '/api/workspaces', { credential })).status, 200);
  });

  it('a snapshot of another node is refused through the API, nothing changed', async () => {
    const other = await startPaired();
    procs.push(other.proc);
    const theirs = await api(other.proc.url, 'POST', '/api/backups', { credential: other.credential, body: {} });
    assert.equal(theirs.status, 201);
    const { proc, credential } = await startPaired();
    procs.push(proc);
    const name = 'backup-2026-02-01T00-00-00-000Z-manual.tar.gz';
    mkdirSync(path.join(proc.dataDir, 'backups'), { recursive: true, mode: 0o700 });
    copyFileSync(path.join(other.proc.dataDir, 'backups', theirs.body.name), path.join(proc.dataDir, 'backups', name));
    const tree = treeOf(proc.dataDir);
    const listing = backupsOf(proc.dataDir);
    const refused = await api(proc.url, 'POST', `/api/backups/${name}/restore`, { credential });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.match(refused.body.error.message, /another node .*-foreign.*nothing was changed/);
    assert.deepEqual(treeOf(proc.dataDir), tree);
    assert.deepEqual(backupsOf(proc.dataDir), listing);
  });
});

/** The tree without `selfhost/` (identity and trust state, which a restore never touches). */
function contentOf(tree: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tree).filter(([k]) => !k.startsWith('selfhost/')));
}
