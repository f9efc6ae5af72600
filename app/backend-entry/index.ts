// The app's backend entry, run by the app in an Electron utility process and by `npm run backend`
// with plain Node. It stays small and loads the backend (service-main.mjs, built beside it with the
// chunks/ it loads on first use) only after three things:
// - ELECTRON_RUN_AS_NODE is never needed here, and deleting one inherited from the environment keeps
//   it out of every process the backend spawns (an Electron-based tool server would start as Node);
// - an older Node gets one clear line instead of a missing API later;
// - Node's compile cache is on before the backend's code is compiled (it only caches what is
//   compiled after it is enabled), which takes about a fifth off a warm start (README, Benchmarks).
import module from 'node:module';
import { nodeFloorProblem } from '../../backend/cli/node-floor.js';

delete process.env.ELECTRON_RUN_AS_NODE;
const problem = nodeFloorProblem();
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
// Cache in NODE_COMPILE_CACHE, else the OS temp folder; keyed by content, so an update never reuses a stale entry.
module.enableCompileCache();
// A URL, not a module specifier: the backend stays a file of its own instead of being bundled in here.
await import(new URL('./service-main.mjs', import.meta.url).href);
