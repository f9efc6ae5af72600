import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { BUILD_OUTPUT, PACKAGED, runtimePaths } from '../../app/build-layout.js';
import { LogBuffer } from '../../app/logs/log-buffer.js';
import { BackendSupervisor } from '../../app/supervisor/backend-supervisor.js';
import { api, tempDir } from '../helpers/backend-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const config = parse(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8'));
const targets = (platform: { target: (string | { target: string })[] }) =>
  platform.target.map((t) => (typeof t === 'string' ? t : t.target));

function pngSize(file: string): [number, number] {
  const buf = readFileSync(file);
  assert.equal(buf.subarray(1, 4).toString('latin1'), 'PNG', `${file} is a PNG`);
  return [buf.readUInt32BE(16), buf.readUInt32BE(20)];
}

describe('electron-builder.yml', () => {
  it('names the app and every platform target', () => {
    assert.match(config.appId, /^[a-z]+(\.[a-z0-9-]+)+$/);
    assert.equal(config.productName, 'Service');
    assert.deepEqual(targets(config.mac), ['dmg', 'zip']);
    assert.deepEqual(targets(config.win), ['nsis']);
    assert.deepEqual(targets(config.linux), ['deb', 'AppImage']);
  });

  it('uses real icons from resources/', () => {
    assert.deepEqual(pngSize(path.join(ROOT, config.mac.icon)), [1024, 1024]);
    assert.deepEqual(pngSize(path.join(ROOT, config.win.icon)), [1024, 1024]);
    assert.deepEqual(pngSize(path.join(ROOT, config.linux.icon, '512x512.png')), [512, 512]);
  });

  it('packages the files the builds produce, at the paths the main process looks for', () => {
    assert.equal(config.extraMetadata.main, BUILD_OUTPUT.main);
    const globs = config.files.filter((f: unknown) => typeof f === 'string');
    assert.ok(globs.includes(`${path.posix.dirname(BUILD_OUTPUT.main)}/**`));
    assert.ok(globs.includes(`${path.posix.dirname(BUILD_OUTPUT.preload)}/**`));
    const renderer = config.files.find((f: { from?: string }) => typeof f === 'object' && f.from === BUILD_OUTPUT.renderer);
    assert.equal(renderer?.to, PACKAGED.rendererDir);
    // The backend is spawned as a process, so it must be outside the asar.
    const [backend] = config.extraResources;
    assert.equal(backend.from, path.posix.dirname(BUILD_OUTPUT.backend));
    assert.equal(backend.to, PACKAGED.backendDir);
    assert.deepEqual(backend.filter, [
      path.posix.basename(BUILD_OUTPUT.backend),
      path.posix.basename(BUILD_OUTPUT.backendMain),
      `${path.posix.relative(backend.from, BUILD_OUTPUT.backendChunks)}/*.mjs`,
    ]);
    assert.equal(path.posix.dirname(BUILD_OUTPUT.backendMain), backend.from, 'the entry loads service-main.mjs from its own folder');
    const packaged = runtimePaths({ isPackaged: true, appRoot: '/app.asar', resourcesPath: '/res' });
    assert.equal(packaged.backendEntry, path.join('/res', backend.to, backend.filter[0]));
    assert.equal(packaged.rendererDir, path.join('/app.asar', renderer.to));
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    // dist packages what `npm run build` produced: the renderer and the app bundles included.
    assert.match(pkg.scripts.dist, /npm run build\b.*electron-builder --config electron-builder\.yml/);
    assert.match(pkg.scripts.build, /build:renderer/);
    assert.match(pkg.scripts.build, /build:app/);
  });
});

describe('the bundled backend (dist-app, from npm run build:app)', () => {
  const dir = tempDir('svc-app-bundle-');
  let supervisor: BackendSupervisor | undefined;
  after(async () => {
    await supervisor?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exists with main and preload, and runs alone from a folder without node_modules', async (t) => {
    const built = path.join(ROOT, BUILD_OUTPUT.backend);
    if (!existsSync(built)) return t.skip('dist-app/ is not built (npm run build:app)');
    assert.ok(existsSync(path.join(ROOT, BUILD_OUTPUT.main)), BUILD_OUTPUT.main);
    assert.ok(existsSync(path.join(ROOT, BUILD_OUTPUT.preload)), BUILD_OUTPUT.preload);
    const entry = path.join(dir, path.basename(built));
    copyFileSync(built, entry);
    copyFileSync(path.join(ROOT, BUILD_OUTPUT.backendMain), path.join(dir, path.basename(BUILD_OUTPUT.backendMain)));
    cpSync(path.join(ROOT, BUILD_OUTPUT.backendChunks), path.join(dir, path.basename(BUILD_OUTPUT.backendChunks)), { recursive: true });
    supervisor = new BackendSupervisor({
      entry,
      dataDir: path.join(dir, 'data'),
      log: new LogBuffer(),
      preferredPort: 0,
      preferredSwapPort: 0,
      timing: { healthPollMs: 20 },
    });
    supervisor.start();
    const state = await supervisor.waitFor(
      (s) => s.status === 'ready' || s.status === 'failed' || s.status === 'waiting-to-restart',
      20_000,
    );
    assert.equal(state.status, 'ready', JSON.stringify(state));
    if (state.status === 'ready') assert.equal((await api(state.url, 'GET', '/health')).status, 200);
  });
});
