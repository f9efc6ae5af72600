import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BackendProcess, startPaired, tempDir } from '../helpers/backend-process.js';
import { isEnvelope, send, type Reply } from './harness.js';

/**
 * A real full or read-only file system: a 512 KiB tmpfs mounted over the data directory
 * (needs root and CAP_SYS_ADMIN; skipped with the reason otherwise).
 */
const base = tempDir('svc-storage-');
const mountPoint = path.join(base, 'mnt');
let mounted = false;
const dataDir = () => path.join(mountPoint, 'data');
let proc: BackendProcess | undefined;
let credential = '';

function mount(options: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', mountPoint], { stdio: 'pipe' });
}

before(() => {
  mkdirSync(mountPoint, { recursive: true });
  try {
    mount('size=512k,mode=0700');
    mounted = true;
  } catch {
    mounted = false;
  }
  if (!mounted) return;
  // The search index stays open for writing while the backend runs (SQLite in WAL mode), and a
  // file system with a file open for writing refuses `remount,ro` ("mount point is busy"): whether
  // the index was open yet when the test remounted was a race. The index lives outside the tmpfs
  // through a symlink (SQLite follows it and keeps its -wal and -shm beside the target), so the
  // remount always works and every file the test checks is still on the full or read-only mount.
  mkdirSync(dataDir(), { recursive: true, mode: 0o700 });
  symlinkSync(path.join(base, 'search-index.sqlite'), path.join(dataDir(), 'search-index.sqlite'));
});

after(async () => {
  await proc?.stop();
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(base, { recursive: true, force: true });
});

/** Derived binary indexes (search-index.sqlite, events.idx): rebuilt from the documents, not compared. */
const DERIVED = /(^|\/)(search-index\.sqlite(-wal|-shm)?|events\.idx)$/;

function snapshot(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (DERIVED.test(full)) continue;
      if (statSync(full).isDirectory()) walk(full);
      else out.set(path.relative(dataDir(), full), readFileSync(full, 'utf8'));
    }
  };
  walk(dataDir());
  return out;
}

let round = 0;
function writes(): Promise<Reply>[] {
  const id = `late${round++}`;
  const headers = { authorization: `Bearer ${credential}`, 'content-type': 'application/json' };
  const port = proc!.port;
  return [
    send(port, {
      method: 'POST',
      path: '/api/config/providers',
      headers,
      body: JSON.stringify({ id, name: id, type: 'compat', api_key: 'sk-late-0000' }),
    }),
    send(port, { method: 'PUT', path: '/api/profiles/late', headers, body: JSON.stringify({ language: 'en' }) }),
    send(port, {
      method: 'PUT',
      path: '/api/skills/late',
      headers,
      body: JSON.stringify({ content: `---\nname: late\ndescription: d\n---\n${'x'.repeat(4000)}` }),
    }),
    send(port, { method: 'PUT', path: '/api/mcp/global', headers, body: JSON.stringify({ mcpServers: { late: { command: 'node' } } }) }),
    send(port, { method: 'POST', path: '/api/workspaces', headers, body: JSON.stringify({ name: 'late' }) }),
    send(port, { method: 'POST', path: '/api/selfhost/credential/rotate', headers: { authorization: `Bearer ${credential}` } }),
  ];
}

async function expectStorageErrors(reason: RegExp): Promise<void> {
  for (const r of await Promise.all(writes())) {
    assert.equal(r.status, 500, r.text);
    assert.ok(isEnvelope(r.json), r.text);
    assert.equal(
      r.json.error.code,
      'storage_error',
      `${r.text}\n${proc!.lines
        .filter((l) => l.stream === 'stderr')
        .slice(-12)
        .map((l) => l.line)
        .join('\n')}`,
    );
    assert.match(r.json.error.message, reason);
  }
}

describe('disk full and read-only data directory', () => {
  it('disk full: every write answers a clear storage_error and leaves the previous files intact', async (t) => {
    if (!mounted) return t.skip('cannot mount a tmpfs here (needs root); disk-full not simulated');
    ({ proc, credential } = await startPaired({ dataDir: dataDir(), env: { EXPRESS_MODE: 'release' } }));
    const setup = await send(proc.port, {
      method: 'POST',
      path: '/api/config/providers',
      headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'kept', name: 'Kept', type: 'compat', api_key: 'sk-kept-1234' }),
    });
    assert.equal(setup.status, 201);
    const before = snapshot();
    // Fill the file system to the last block.
    const filler = path.join(mountPoint, 'filler');
    try {
      writeFileSync(filler, Buffer.alloc(1024 * 1024));
    } catch (err) {
      assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
    }
    await expectStorageErrors(/no space left/i);
    assert.deepEqual(snapshot(), before, 'old files intact, no temporary files left');
    assert.equal(
      (await send(proc.port, { path: '/api/config/providers', headers: { authorization: `Bearer ${credential}` } })).status,
      200,
      'the old credential still works and reads go on',
    );
    assert.ok(
      proc.lines.some((l) => /ENOSPC/.test(l.line)),
      'the operator sees the cause in the log',
    );

    rmSync(filler);
    const again = await Promise.all(writes());
    assert.deepEqual(
      again.map((r) => r.status),
      [201, 201, 201, 200, 201, 200],
      'writes work again once space is free',
    );
    credential = again[5].json.credential;
  });

  it('read-only: every write answers a clear storage_error, reads keep working, files stay as they were', async (t) => {
    if (!mounted || !proc) return t.skip('cannot mount a tmpfs here (needs root); read-only not simulated');
    const before = snapshot();
    execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
    try {
      // Node's recursive mkdir (new workspace folders) reports EROFS as ENOENT.
      await expectStorageErrors(/read-only|folder could not be created/i);
      assert.deepEqual(snapshot(), before);
      const read = await send(proc.port, { path: '/api/skills/late', headers: { authorization: `Bearer ${credential}` } });
      assert.equal(read.status, 200);
      await proc.stop();
      // Starting on a read-only directory fails with a message that names it, not a stack trace.
      const ro = await BackendProcess.start({ dataDir: dataDir(), waitForListening: false });
      assert.equal(await ro.exited, 1);
      assert.match(ro.output(), /cannot use data directory .*read-only/i);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint]);
    }
    assert.deepEqual(snapshot(), before);
  });
});
