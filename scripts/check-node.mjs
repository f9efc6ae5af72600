// First step of `npm start` and `npm run backend`: an older Node gets one clear line (exit 1) before
// the build or the app fails on a missing API. The floor is package.json `engines.node` (`>=N`),
// which test/app/node-floor.test.ts keeps equal to the backend's NODE_FLOOR_MAJOR.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const floor = Number(/^>=\s*(\d+)/.exec(pkg.engines?.node ?? '')?.[1]);
const found = process.versions.node;
if (!Number.isInteger(floor)) {
  console.error(`error: package.json engines.node must read ">=N" (found ${JSON.stringify(pkg.engines?.node)})`);
  process.exit(1);
}
if (Number.parseInt(found, 10) < floor) {
  console.error(
    `error: this project needs Node.js ${floor} or later, but npm is running it on Node.js ${found}; install Node.js ${floor} or later`,
  );
  process.exit(1);
}
