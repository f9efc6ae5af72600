import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { BUILD_OUTPUT } from '../../app/build-layout.js';
import { tempDir } from '../helpers/backend-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);
const asar = require('@electron/asar') as {
  listPackage(archive: string, options?: object): string[];
  statFile(archive: string, filename: string): { files?: object };
  extractFile(archive: string, filename: string): Buffer;
};

/** @electron/fuses finds the fuse wire after this sentinel: version byte 1, length, one byte per fuse. */
const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/** Fuse order of wire version 1 (@electron/fuses FuseV1Options) and Electron's defaults. */
const FUSES = [
  ['runAsNode', '1'],
  ['enableCookieEncryption', '0'],
  ['enableNodeOptionsEnvironmentVariable', '1'],
  ['enableNodeCliInspectArguments', '1'],
  ['enableEmbeddedAsarIntegrityValidation', '0'],
  ['onlyLoadAppFromAsar', '0'],
  ['loadBrowserProcessSpecificV8Snapshot', '0'],
  ['grantFileProtocolExtraPrivileges', '1'],
] as const;

/**
 * A stand-in for Electron's unpacked distribution: electron-builder only copies it and flips the
 * fuses in the executable, so a script carrying a fuse wire with Electron's defaults is enough.
 */
function makeStandInElectron(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const wire = FUSES.map(([, value]) => value).join('');
  const body = Buffer.concat([
    Buffer.from(`#!/bin/sh\necho "stand-in Electron"\nexit 0\n# `),
    Buffer.from(FUSE_SENTINEL),
    Buffer.from([1, FUSES.length]),
    Buffer.from(wire),
    Buffer.from('\n'),
  ]);
  writeFileSync(path.join(dir, 'electron'), body);
  chmodSync(path.join(dir, 'electron'), 0o755);
  writeFileSync(path.join(dir, 'LICENSE'), 'stand-in\n');
}

function readFuses(executable: string): Record<string, boolean> {
  const bytes = readFileSync(executable);
  const at = bytes.indexOf(FUSE_SENTINEL) + FUSE_SENTINEL.length;
  assert.equal(bytes[at], 1, 'fuse wire version');
  return Object.fromEntries(FUSES.map(([name], i) => [name, bytes[at + 2 + i] === '1'.charCodeAt(0)]));
}

function sizeOf(target: string): number {
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(target).reduce((sum, entry) => sum + sizeOf(path.join(target, entry)), 0);
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const built = [BUILD_OUTPUT.main, BUILD_OUTPUT.preload, BUILD_OUTPUT.backend, `${BUILD_OUTPUT.renderer}/index.html`].every((f) =>
  existsSync(path.join(ROOT, f)),
);

describe('electron-builder --linux dir, offline, with a stand-in Electron', { skip: !built && 'npm run build first' }, () => {
  const work = tempDir('svc-package-');
  const out = path.join(work, 'release');
  let unpacked = '';
  let resources = '';
  let log = '';

  before(() => {
    makeStandInElectron(path.join(work, 'electron-dist'));
    // The real configuration (fuses included); only where Electron comes from and where output goes differ.
    const config = parse(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8')) as Record<string, any>;
    config.electronDist = path.join(work, 'electron-dist');
    config.directories = { ...config.directories, output: out };
    const configFile = path.join(work, 'builder.yml');
    writeFileSync(configFile, stringify(config));
    const cli = require.resolve('electron-builder/cli.js');
    const result = spawnSync(process.execPath, [cli, '--projectDir', ROOT, '--config', configFile, '--linux', 'dir'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 180_000,
      env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', CSC_IDENTITY_AUTO_DISCOVERY: 'false' },
    });
    log = `${result.stdout}\n${result.stderr}`;
    assert.equal(result.status, 0, log);
    unpacked = path.join(out, 'linux-unpacked');
    resources = path.join(unpacked, 'resources');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('app.asar holds exactly package.json, the main and preload bundles and the renderer', () => {
    const archive = path.join(resources, 'app.asar');
    const entries = asar.listPackage(archive, { isPack: false }).map((e) => e.replaceAll('\\', '/'));
    const files = entries.filter((e) => !asar.statFile(archive, e.slice(1)).files).sort();
    const renderer = files.filter((f) => f.startsWith('/renderer/'));
    assert.deepEqual(
      files.filter((f) => !f.startsWith('/renderer/')),
      ['/dist-app/main/index.js', '/dist-app/preload/index.cjs', '/package.json'],
    );
    assert.ok(renderer.includes('/renderer/index.html'), renderer.join('\n'));
    assert.ok(renderer.some((f) => /^\/renderer\/assets\/.+\.js$/.test(f)));
    assert.equal(
      entries.some((e) => e.includes('node_modules') || e.endsWith('.map') || /anvil/i.test(e)),
      false,
      entries.join('\n'),
    );
    const pkg = JSON.parse(asar.extractFile(archive, 'package.json').toString('utf8'));
    assert.equal(pkg.main, BUILD_OUTPUT.main);
  });

  it('resources/: the asar and the backend, nothing unpacked, no node_modules, no anvil, no source maps', () => {
    assert.deepEqual(readdirSync(resources).sort(), ['app.asar', 'backend']);
    assert.deepEqual(readdirSync(path.join(resources, 'backend')).sort(), ['chunks', 'service-backend.mjs', 'service-main.mjs']);
    const chunks = readdirSync(path.join(resources, 'backend', 'chunks'));
    assert.ok(chunks.length > 0 && chunks.every((f) => f.endsWith('.mjs')), chunks.join(' '));
    const everything = readdirSync(unpacked, { recursive: true }).map(String);
    assert.equal(
      everything.some((f) => f.includes('node_modules') || f.endsWith('.map') || /anvil/i.test(f)),
      false,
      everything.join('\n'),
    );
    const sizes = {
      'app.asar': kib(sizeOf(path.join(resources, 'app.asar'))),
      'backend/': kib(sizeOf(path.join(resources, 'backend'))),
      'resources total': kib(sizeOf(resources)),
    };
    console.log(`# package sizes: ${JSON.stringify(sizes)}`);
  });

  it('the fuses of the real configuration are flipped in the executable', () => {
    assert.deepEqual(readFuses(path.join(unpacked, 'service-desktop')), {
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('resources/backend/service-backend.mjs starts with node, from the package, without node_modules', async () => {
    const entry = path.join(resources, 'backend', 'service-backend.mjs');
    const version = spawnSync(process.execPath, [entry, 'version'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(version.status, 0, version.stderr);
    assert.match(version.stdout, /^\d+\.\d+\.\d+/);
    const child = spawn(process.execPath, [entry, '-port', '0', '-swap-port', '0', '-data', path.join(work, 'data')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    try {
      const [url, swapUrl] = await new Promise<[string, string]>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          const m = /^listening on (\S+)$/m.exec(text);
          const swap = /^swap builder listening on (\S+)$/m.exec(text);
          if (m && swap) resolve([m[1], swap[1]]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
      });
      assert.equal((await fetch(`${url}/health`)).status, 200);
      // The swap listener loads its route builder from chunks/ on its first request: a validation
      // answer (not a 500 from a missing chunk) shows the packaged chunks are found.
      const build = await fetch(`${swapUrl}/api/v1/route/build`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ chainId: 56 }),
      });
      assert.equal(build.status, 400, await build.text());
    } finally {
      child.kill('SIGTERM');
    }
  });
});
