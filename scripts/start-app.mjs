// `npm start`: builds and launches the desktop app; without an Electron binary (the download is
// blocked in some environments) it says so in one line and runs the headless backend instead.
import { spawn } from 'node:child_process';
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

const electron = electronBinary();
if (!electron) {
  console.log('Electron binary is not installed; starting the headless backend instead (npm run backend).');
  process.exit(await run(npm, ['run', '--silent', 'backend', ...(args.length ? ['--', ...args] : [])]));
}
for (const script of ['build', 'build:renderer', 'build:app']) {
  const code = await run(npm, ['run', '--silent', script]);
  if (code !== 0) process.exit(code);
}
process.exit(await run(electron, ['dist-app/main/index.js', ...args]));
