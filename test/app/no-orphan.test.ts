import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { BACKEND_ENTRY, tempDir } from '../helpers/backend-process.js';

const PARENT = fileURLToPath(new URL('./fixtures/supervisor-parent.js', import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

it('the backend exits by itself when the app process is killed (no orphan)', async () => {
  const dir = tempDir('svc-app-orphan-');
  const parent = spawn(process.execPath, [PARENT, BACKEND_ENTRY, path.join(dir, 'data')], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const backendPid = await new Promise<number>((resolve, reject) => {
      let out = '';
      parent.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /ready (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      parent.once('exit', (code) => reject(new Error(`parent exited (${code}) before the backend was ready`)));
    });
    assert.equal(alive(backendPid), true);
    parent.kill('SIGKILL');
    // No event tells us about an unrelated process ending: poll, bounded by the backend's grace period.
    const deadline = Date.now() + 5000;
    while (alive(backendPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(backendPid), false, `backend ${backendPid} outlived its parent`);
  } finally {
    parent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
