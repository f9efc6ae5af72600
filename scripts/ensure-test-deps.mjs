#!/usr/bin/env node
// Part of `npm test`: makes sure the system packages the tests need are present on a fresh machine.
// Browser tests drive Debian's Chromium (npm cannot download a browser here).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const apt = process.platform === 'linux' && have('apt-get');
const sudo = root ? [] : have('sudo') ? ['sudo'] : null;

function aptInstall(packages) {
  const run = (args) =>
    execFileSync(sudo[0] ?? args[0], sudo.length ? args : args.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages]);
}

/** A font with Chinese glyphs: without one, the Chinese screenshots show boxes (the tests still pass). */
function haveCjkFont() {
  if (!have('fc-list')) return existsSync('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc');
  const out = spawnSync('fc-list', [':lang=zh'], { encoding: 'utf8' });
  return out.status === 0 && out.stdout.trim().length > 0;
}

const wanted = [];
if (!existsSync(CHROMIUM)) {
  if (!apt || sudo === null) {
    console.error(
      apt
        ? `Chromium is missing at ${CHROMIUM}; install it: apt-get install -y chromium`
        : `Chromium is missing at ${CHROMIUM}; set CHROMIUM_PATH to a Chromium or Chrome binary.`,
    );
    process.exit(1);
  }
  wanted.push('chromium');
}
const cjk = !haveCjkFont() && apt && sudo !== null;
if (cjk) wanted.push('fonts-noto-cjk');
if (wanted.length > 0) {
  console.log(`installing ${wanted.join(', ')} for the browser tests (apt-get)…`);
  try {
    aptInstall(wanted);
  } catch (err) {
    // Only Chromium is required; a missing font makes screenshots less readable, not tests wrong.
    if (wanted.includes('chromium')) throw err;
    console.warn(`could not install fonts-noto-cjk (${err.message}); Chinese screenshots will show boxes`);
  }
}
