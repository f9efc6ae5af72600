import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/backend-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test(
  'npm run backend (the bundled backend) starts, serves the UI at / and stops on SIGTERM',
  { skip: !existsSync(path.join(ROOT, 'dist-app', 'backend', 'service-backend.mjs')) && 'dist-app not built' },
  async () => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'scripts', 'backend.mjs'), '-port', '0', '-swap-port', 'off', '-data', path.join(tempDir(), 'data')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /^listening on (http:\/\/\S+)$/m.exec(out);
        if (m) resolve(m[1]);
      });
      void exited.then((code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    assert.match(out, /^pairing code: \d{6} \(expires /m);
    assert.equal((await fetch(`${url}/health`)).status, 200);
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<div id="root">/);
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  },
);
