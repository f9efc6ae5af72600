#!/usr/bin/env node
// `npm test` after the build: every test file under dist/test, the browser tests against the
// renderer bundle this build just produced (so they test what ships, not a stale copy).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// Arguments starting with `--` go to node's test runner (e.g. `--test-name-pattern=resume`); the rest are
// folders or files under dist/test.
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));

/** `*.test.js` files only: given a folder, node's runner would also run every helper and fixture under a test/ folder. */
function testFiles(target) {
  if (statSync(target).isFile()) return [target];
  return readdirSync(target, { recursive: true })
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => path.join(target, f))
    .sort();
}

const targets = (args.length > 0 ? args : [path.join('dist', 'test')]).flatMap((t) => testFiles(path.resolve(root, t)));
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...flags, ...targets], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, SERVICE_UI_DIR: process.env.SERVICE_UI_DIR ?? path.join(root, 'dist', 'renderer') },
});
process.exit(result.status ?? 1);
