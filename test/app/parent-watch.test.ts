import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { isAlive } from '../../backend/cli/parent-watch.js';

const PARENT = fileURLToPath(new URL('./fixtures/watched-parent.js', import.meta.url));

it('a backend without an IPC channel (utility process) exits when the app is killed (kill -9)', async () => {
  const parent = spawn(process.execPath, [PARENT], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let childPid = 0;
  try {
    childPid = await new Promise<number>((resolve, reject) => {
      parent.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /child (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      parent.once('exit', (code) => reject(new Error(`parent exited (${code}): ${out}`)));
    });
    assert.equal(isAlive(childPid), true);
    parent.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    while (isAlive(childPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(isAlive(childPid), false, `child ${childPid} outlived its parent`);
  } finally {
    parent.kill('SIGKILL');
    if (childPid && isAlive(childPid)) process.kill(childPid, 'SIGKILL');
  }
});
