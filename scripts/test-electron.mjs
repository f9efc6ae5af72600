#!/usr/bin/env node
// `npm run test:electron`: the desktop app driven in a real Electron by Playwright
// (test/electron/desktop-app.electron.ts). It needs the Electron binary, which `npm ci` does not
// download (package.json allowScripts): where it is missing, or on Linux without a display and
// without xvfb-run, this prints one line saying it skipped and why, and exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The installed Electron binary, read the way electron's index.js does but without its download on a miss. */
function electronBinary() {
  if (process.env.ELECTRON_PATH) return existsSync(process.env.ELECTRON_PATH) ? process.env.ELECTRON_PATH : null;
  const dir = path.dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  const pathFile = path.join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const name = readFileSync(pathFile, 'utf8').trim();
  const binary = process.env.ELECTRON_OVERRIDE_DIST_PATH
    ? path.join(process.env.ELECTRON_OVERRIDE_DIST_PATH, name)
    : path.join(dir, 'dist', name);
  return existsSync(binary) ? binary : null;
}

const have = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

const binary = electronBinary();
if (!binary) {
  console.log(
    'test:electron: skipped: the Electron binary is not installed (npm ci does not download it; `node node_modules/electron/install.js` does, where its download host is reachable)',
  );
  process.exit(0);
}
const headless = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
if (headless && !have('xvfb-run')) {
  console.log('test:electron: skipped: no display and no xvfb-run to make one (apt-get install xvfb)');
  process.exit(0);
}

const run = (command, args) =>
  spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
    env: { ...process.env, ELECTRON_PATH: binary },
  }).status ?? 1;
const built = run(npm, ['run', '--silent', 'build']);
if (built !== 0) process.exit(built);
const test = [process.execPath, '--test', path.join('dist', 'test', 'electron', 'desktop-app.electron.js')];
process.exit(headless ? run('xvfb-run', ['-a', ...test]) : run(test[0], test.slice(1)));
