#!/usr/bin/env node
// Part of `npm test`: makes sure the system packages the tests need are present on a fresh machine.
// Browser tests drive Debian's Chromium (npm cannot download a browser here).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

if (!existsSync(CHROMIUM)) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (process.platform === 'linux' && have('apt-get')) {
    const sudo = root ? [] : have('sudo') ? ['sudo'] : null;
    if (sudo === null) {
      console.error(`Chromium is missing at ${CHROMIUM}; install it: apt-get install -y chromium`);
      process.exit(1);
    }
    console.log('installing Chromium for the browser tests (apt-get install chromium)…');
    const run = (args) =>
      execFileSync(sudo[0] ?? args[0], sudo.length ? args : args.slice(1), {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    run(['apt-get', 'update', '-qq']);
    run(['apt-get', 'install', '-y', '-qq', 'chromium']);
  } else {
    console.error(`Chromium is missing at ${CHROMIUM}; set CHROMIUM_PATH to a Chromium or Chrome binary.`);
    process.exit(1);
  }
}
