import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, startPaired, tempDir, type BackendProcess } from '../helpers/backend-process.js';
import { backupsOf, nodeIdOf, packEntries, runCli, treeOf, type RawEntry } from './backup-kit.js';

/**
 * A snapshot as the writer before DESIGN 16 made it (format 1): every folder, then every file of
 * the data directory (selfhost/ and the search index included, backups/ and trash/ and the lock
 * left out), then manifest.json last, without a node id. `edit` changes the listing and
 * `inArchive` the bodies archived, not those listed (hostile ones).
 */
async function formatOne(
  root: string,
  file: string,
  edit: (files: { path: string; body: Buffer }[], dirs: string[]) => void = () => undefined,
  inArchive: Record<string, Buffer> = {},
): Promise<void> {
  const dirs: string[] = [];
  const files: { path: string; body: Buffer }[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      if (!rel && (name === 'backups' || name === 'trash')) continue;
      if (child === 'selfhost/instance.lock') continue;
      if (statSync(path.join(root, child)).isDirectory()) {
        dirs.push(child);
        walk(child);
      } else files.push({ path: child, body: readFileSync(path.join(root, child)) });
    }
  };
  walk('');
  edit(files, dirs);
  const manifest = {
    format: 1,
    created_at: new Date().toISOString(),
    kind: 'pre-update',
    version: '0.1.0',
    dirs,
    files: files.map((f) => ({
      path: f.path,
      size: f.body.length,
      mode: 0o600,
      sha256: createHash('sha256').update(f.body).digest('hex'),
    })),
  };
  await packEntries(file, [
    ...dirs.map((d): RawEntry => ({ path: `data/${d}/`, type: 'Directory' })),
    ...files.map((f): RawEntry => ({ path: `data/${f.path}`, body: inArchive[f.path] ?? f.body })),
    { path: 'manifest.json', body: Buffer.from(JSON.stringify(manifest, null, 1)) },
  ]);
}

const withoutIdentity = (tree: Record<string, string>) =>
  Object.fromEntries(Object.entries(tree).filter(([k]) => !k.startsWith('selfhost/')));
const identityOf = (tree: Record<string, string>) => Object.fromEntries(Object.entries(tree).filter(([k]) => k.startsWith('selfhost/')));

describe('snapshots of earlier versions (format 1, the manifest last) restore safely', () => {
  let proc: BackendProcess;
  let dataDir: string;
  const work = tempDir('svc-legacy-');
  let old = '';
  let oldContent: Record<string, string> = {};

  before(async () => {
    let credential: string;
    ({ proc, credential } = await startPaired());
    dataDir = proc.dataDir;
    assert.equal((await api(proc.url, 'POST', '/api/workspaces', { credential, body: { name: 'Then' } })).status, 201);
    await proc.stop();
    writeFileSync(path.join(dataDir, 'search-index.sqlite'), 'derived, never restored');
    old = path.join(work, 'old.tar.gz');
    await formatOne(dataDir, old);
    oldContent = withoutIdentity(treeOf(dataDir));
    rmSync(path.join(dataDir, 'search-index.sqlite'));
  });
  after(async () => {
    await proc?.stop();
    proc?.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it('the restore sub-command brings back its content and keeps the identity and devices of now', async () => {
    // Since the snapshot: the workspaces changed, and so did the trust state (a device revoked, say).
    rmSync(path.join(dataDir, 'workspaces'), { recursive: true });
    writeFileSync(path.join(dataDir, 'selfhost', 'revoked-since.json'), '{"revoked":["d-1"]}');
    const identityNow = identityOf(treeOf(dataDir));
    const r = runCli(['restore', old, '-data', dataDir]);
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
    assert.deepEqual(withoutIdentity(treeOf(dataDir)), oldContent, 'the content as it was');
    assert.deepEqual(identityOf(treeOf(dataDir)), identityNow, 'selfhost/ as it is now, not as it was');
    assert.ok(!backupsOf(dataDir).some((n) => n.startsWith('.restore')), 'no staging left');
  });

  it('a format-1 snapshot of another node needs -foreign, as any other', async () => {
    const theirs = path.join(work, 'theirs.tar.gz');
    await formatOne(dataDir, theirs, (files) => {
      const pairing = files.find((f) => f.path === 'selfhost/pairing.json')!;
      pairing.body = Buffer.from(JSON.stringify({ ...JSON.parse(pairing.body.toString()), node_id: 'another-node' }));
    });
    assert.notEqual(nodeIdOf(dataDir), 'another-node');
    const tree = treeOf(dataDir);
    const r = runCli(['restore', theirs, '-data', dataDir]);
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stderr, /was taken on another node \(another-node;.*nothing was changed/);
    assert.deepEqual(treeOf(dataDir), tree);
  });

  it('hostile format-1 snapshots are refused by the same rules before anything changes', async () => {
    const big = { 'config.yaml': Buffer.alloc(64 * 1024 * 1024) };
    const cases: [string, Parameters<typeof formatOne>[2], RegExp, Record<string, Buffer>?][] = [
      ['names differing only in case', (files) => files.push({ path: 'Config.yaml', body: Buffer.from('x') }), /config\.yaml/i],
      ['an entry larger than its manifest says (a bomb)', undefined, /"config\.yaml" holds 67108864 bytes, its manifest says \d+/, big],
      ['an unsafe path', (files) => files.push({ path: '../escape.txt', body: Buffer.from('x') }), /unsafe path/],
    ];
    for (const [what, edit, reason, inArchive] of cases) {
      const file = path.join(work, `hostile-${what.replace(/\W+/g, '-')}.tar.gz`);
      await formatOne(dataDir, file, edit, inArchive);
      const tree = treeOf(dataDir);
      const listing = backupsOf(dataDir);
      const r = runCli(['restore', file, '-data', dataDir]);
      assert.equal(r.status, 1, `${what}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, reason, what);
      assert.match(r.stderr, /^error: .*nothing was changed\n$/, `${what}: one error line`);
      assert.deepEqual(treeOf(dataDir), tree, `${what}: nothing changed`);
      assert.deepEqual(backupsOf(dataDir), listing, `${what}: no snapshot taken, no staging left`);
    }
  });
});
