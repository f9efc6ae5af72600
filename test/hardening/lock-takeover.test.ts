import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { instanceLockPath } from '../../backend/data/instance-lock.js';
import { tempDir } from '../helpers/backend-process.js';

const LOCK_MODULE = pathToFileURL(path.resolve(import.meta.dirname, '../../backend/data/instance-lock.js')).href;
const root = tempDir('svc-takeover-');
after(() => spawnSync('rm', ['-rf', root]));

/** A child that takes the lock at `startAt` (all children at the same instant) and holds it for a while. */
const CHILD = `
const { InstanceLock } = await import(process.env.LOCK_MODULE);
const startAt = Number(process.env.START_AT);
while (Date.now() < startAt) {}
try {
  await InstanceLock.acquire(process.env.DATA_DIR);
  process.stdout.write('won');
  await new Promise((r) => setTimeout(r, 1500));
} catch (err) {
  process.stdout.write(err.constructor.name === 'InstanceLockedError' ? 'lost' : 'error ' + err.message);
}
`;

function contender(dataDir: string, startAt: number): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
      env: { ...process.env, LOCK_MODULE, START_AT: String(startAt), DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', () => resolve(out));
  });
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('stale instance lock taken over by several backends at once', () => {
  it('exactly one of them gets it, every round', async () => {
    for (let round = 0; round < 4; round++) {
      const dataDir = path.join(root, `data-${round}`);
      mkdirSync(path.join(dataDir, 'selfhost'), { recursive: true });
      writeFileSync(instanceLockPath(dataDir), JSON.stringify({ pid: deadPid(), url: null, swap_url: null, started_at: '' }));
      // Children need ~100-300 ms to load on a busy machine: all start their takeover at the same instant.
      const startAt = Date.now() + 1200;
      const results = await Promise.all(Array.from({ length: 6 }, () => contender(dataDir, startAt)));
      assert.deepEqual(
        results.filter((r) => !['won', 'lost'].includes(r)),
        [],
        'every contender either wins or is told another backend runs',
      );
      assert.equal(results.filter((r) => r === 'won').length, 1, `round ${round}: ${results.join(', ')}`);
    }
  });
});
