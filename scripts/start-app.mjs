// `npm start`: builds and launches the desktop app; without an Electron binary (the download is
// blocked in some environments) or without a display it says so in one line and runs the headless
// backend instead.
//
// Electron's own postinstall (a download from outside the npm registry) is not allowed to run at
// `npm ci` (package.json allowScripts), so installs work offline; the binary is fetched here, on the
// first `npm start`, with electron's installer (skipped when ELECTRON_SKIP_BINARY_DOWNLOAD is set).
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function electronBinary() {
  try {
    // electron's index.js throws when its binary was never downloaded.
    return createRequire(import.meta.url)('electron');
  } catch {
    return null;
  }
}

function run(command, commandArgs) {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { stdio: 'inherit', shell: process.platform === 'win32' });
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function fetchElectron() {
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) return null;
  const installer = createRequire(import.meta.url).resolve('electron/install.js');
  const result = spawnSync(process.execPath, [installer], { stdio: 'ignore', timeout: 120_000 });
  return result.status === 0 ? electronBinary() : null;
}

const headless = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
const electron = headless ? null : (electronBinary() ?? fetchElectron());
if (!electron) {
  const why = headless ? 'No display found' : 'Electron binary is not installed';
  console.log(`${why}; starting the headless backend instead (npm run backend).`);
  process.exit(await run(npm, ['run', '--silent', 'backend', ...(args.length ? ['--', ...args] : [])]));
}
// Only what changed since the last start is rebuilt (scripts/build-stale.mjs).
const built = await run(process.execPath, ['scripts/build-stale.mjs', 'app']);
if (built !== 0) process.exit(built);
process.exit(await run(electron, ['dist-app/main/index.js', ...args]));
