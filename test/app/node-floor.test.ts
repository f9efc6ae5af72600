import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BACKEND_BUNDLE_TARGET, BUILD_OUTPUT, ELECTRON_RUNTIME } from '../../app/build-layout.js';
import { NODE_FLOOR_MAJOR, nodeFloorProblem } from '../../backend/cli/node-floor.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};
const major = (version: string): number => Number(/(\d+)/.exec(version)?.[1]);
// Pretends to be an older Node: the check reads process.versions.node, nothing else.
const OLD_NODE = ['--import', 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.20.2"})'];

describe('Node floor: engines, the bundle target and Electron’s Node in step', () => {
  it('engines.node is ">=22", the backend’s floor', () => {
    assert.equal(NODE_FLOOR_MAJOR, 22);
    assert.match(pkg.engines.node, /^>=\d+$/);
    assert.equal(major(pkg.engines.node), NODE_FLOOR_MAJOR);
  });

  it('engines.node allows no Node older than the one the bundled backend is built for', () => {
    assert.match(BACKEND_BUNDLE_TARGET, /^node\d+$/);
    assert.ok(
      major(pkg.engines.node) >= major(BACKEND_BUNDLE_TARGET),
      `engines.node ${pkg.engines.node} allows a Node older than the bundle target ${BACKEND_BUNDLE_TARGET}`,
    );
  });

  it('the recorded Electron runtime is the installed Electron, and its Node meets the floor', () => {
    assert.equal(major(pkg.devDependencies.electron), ELECTRON_RUNTIME.electronMajor, 'Electron was upgraded: revisit ELECTRON_RUNTIME');
    const abi = readFileSync(path.join(path.dirname(require.resolve('electron/package.json')), 'abi_version'), 'utf8').trim();
    assert.equal(Number(abi), ELECTRON_RUNTIME.moduleVersion, 'the installed electron package has another NODE_MODULE_VERSION');
    assert.ok(major(ELECTRON_RUNTIME.node) >= NODE_FLOOR_MAJOR, `Electron's Node ${ELECTRON_RUNTIME.node} is below the floor`);
    const readme = readFileSync(path.join(ROOT, 'docs', 'getting-started.md'), 'utf8');
    assert.ok(
      readme.includes(`Electron ${ELECTRON_RUNTIME.electronMajor} embeds Node ${ELECTRON_RUNTIME.node}`),
      'docs/getting-started.md names the Node that Electron embeds',
    );
  });

  it('names the version found and the one needed in one line', () => {
    assert.equal(nodeFloorProblem('22.0.0'), null);
    assert.equal(nodeFloorProblem('24.21.0'), null);
    const line = nodeFloorProblem('20.20.2');
    assert.ok(line && !line.includes('\n'));
    assert.match(line, /Node\.js 22 or later/);
    assert.match(line, /20\.20\.2/);
  });
});

describe('an older Node is refused in one line, exit 1', () => {
  it('by the bundled backend, before it touches anything', () => {
    const run = spawnSync(
      process.execPath,
      [...OLD_NODE, path.join(ROOT, BUILD_OUTPUT.backend), '-port', '0', '-data', '/nonexistent/never-created'],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    assert.equal(run.status, 1, run.stderr);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(run.stderr, /needs Node\.js 22 or later, but it is running on Node\.js 20\.20\.2/);
  });

  it('by `npm start` and `npm run backend` (scripts/check-node.mjs, their first step)', () => {
    const run = spawnSync(process.execPath, [...OLD_NODE, path.join(ROOT, 'scripts', 'check-node.mjs')], { encoding: 'utf8' });
    assert.equal(run.status, 1);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(run.stderr, /needs Node\.js 22 or later, but npm is running it on Node\.js 20\.20\.2/);
    const ok = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'check-node.mjs')], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    for (const script of ['start', 'backend', 'test']) assert.match(pkg.scripts[script], /^node scripts\/check-node\.mjs && /);
  });
});

describe('the bundled backend’s entry', () => {
  it('turns on Node’s compile cache before loading the backend (entries appear in NODE_COMPILE_CACHE)', () => {
    const cache = mkdtempSync(path.join(os.tmpdir(), 'svc-compile-cache-'));
    try {
      const run = spawnSync(process.execPath, [path.join(ROOT, BUILD_OUTPUT.backend), 'version'], {
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...process.env, NODE_COMPILE_CACHE: cache },
      });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /^\d+\.\d+\.\d+/);
      const files = readdirSync(cache, { recursive: true }).map(String);
      assert.ok(files.length > 0, 'no compile cache written');
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
