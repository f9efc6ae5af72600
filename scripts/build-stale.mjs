#!/usr/bin/env node
// `npm run backend` and `npm start` build only what changed: each step (the renderer, the app's
// main and preload bundles, the single-file backend) is rebuilt when a file it is built from changed
// since its last build here, or its output is missing; otherwise the build on disk is reused.
// Usage: node scripts/build-stale.mjs backend|app. `npm run build` still builds (and type-checks)
// everything. The fingerprints live in dist/.build-stamps.json.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const STAMPS = path.join(root, 'dist', '.build-stamps.json');
/** Inputs every step shares: dependencies and compiler settings. */
const COMMON = ['package.json', 'package-lock.json', 'tsconfig.json'];
const vite = (config, mode) => [
  path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
  'build',
  '--config',
  config,
  ...(mode ? ['--mode', mode] : []),
];

// Output paths as in app/build-layout.ts (BUILD_OUTPUT); a step whose output is still missing after
// its build fails loudly, so a drift between the two cannot pass unnoticed.
const STEPS = {
  // The renderer imports constants and schemas from backend contract files.
  renderer: { inputs: ['renderer', 'backend'], outputs: ['dist/renderer/index.html'], runs: [vite('renderer/vite.config.ts')] },
  main: {
    inputs: ['app', 'backend', 'vite.app.config.ts'],
    outputs: ['dist-app/main/index.js'],
    runs: [vite('vite.app.config.ts', 'main')],
  },
  preload: {
    inputs: ['app', 'backend', 'vite.app.config.ts'],
    outputs: ['dist-app/preload/index.cjs'],
    runs: [vite('vite.app.config.ts', 'preload')],
  },
  backend: {
    inputs: ['backend', 'app/backend-entry', 'app/build-layout.ts', 'vite.app.config.ts'],
    outputs: ['dist-app/backend/service-backend.mjs', 'dist-app/backend/service-main.mjs', 'dist-app/backend/chunks/kb-parse-worker.mjs'],
    // `backend` empties the folder, so `backend-main` comes after it.
    runs: [vite('vite.app.config.ts', 'backend'), vite('vite.app.config.ts', 'backend-main')],
  },
};
const TARGETS = { backend: ['renderer', 'backend'], app: ['renderer', 'main', 'preload', 'backend'] };

/** Every file under the inputs (sorted, `/` separators), hashed with its path: content, not mtimes. */
function fingerprint(inputs) {
  const hash = createHash('sha256');
  const files = [];
  for (const input of [...COMMON, ...inputs]) {
    const abs = path.join(root, input);
    if (!existsSync(abs)) continue;
    if (statSync(abs).isFile()) files.push(input);
    else
      for (const f of readdirSync(abs, { recursive: true, encoding: 'utf8' }))
        if (statSync(path.join(abs, f)).isFile()) files.push(`${input}/${f}`);
  }
  for (const file of files.map((f) => f.split(path.sep).join('/')).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const target = process.argv[2];
if (!(target in TARGETS)) {
  console.error(`usage: node scripts/build-stale.mjs ${Object.keys(TARGETS).join('|')}`);
  process.exit(2);
}
let stamps = {};
try {
  stamps = JSON.parse(readFileSync(STAMPS, 'utf8'));
} catch {
  // No stamps yet (or unreadable): every step builds.
}
for (const name of TARGETS[target]) {
  const step = STEPS[name];
  const print = fingerprint(step.inputs);
  const present = step.outputs.every((o) => existsSync(path.join(root, o)));
  if (present && stamps[name] === print) continue;
  console.log(`build: ${name} (${present ? 'sources changed' : 'not built yet'})`);
  for (const args of step.runs) {
    const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
  const missing = step.outputs.filter((o) => !existsSync(path.join(root, o)));
  if (missing.length > 0) {
    console.error(`build: ${name} did not produce ${missing.join(', ')} (see app/build-layout.ts)`);
    process.exit(1);
  }
  stamps[name] = print;
  mkdirSync(path.dirname(STAMPS), { recursive: true });
  writeFileSync(STAMPS, JSON.stringify(stamps, null, 1));
}
