/** `npm run bench:routes`: prints the route-quality table and the build latencies; writes JSON. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { routeQuality, summarizeQuality } from './route-quality.js';
import { routeSpeed } from './route-speed.js';

const out = path.resolve('bench-results');
const rows = routeQuality();
console.log('Route quality (output ratio; reference = fine-grained optimum):');
console.table(
  rows.map((r) => ({
    case: r.case,
    size: `${r.sizeBps / 100}%`,
    vsReference: r.vsReference.toFixed(9),
    vsBestSingle: r.vsBestSingle.toFixed(6),
    vsFivePercent: r.vsFivePercent.toFixed(6),
    optimizerMs: r.optimizerMs.toFixed(2),
  })),
);
const quality = summarizeQuality(rows);
console.log(quality);
console.log('\nRoute build latency against the local chain (anvil):');
const speed = await routeSpeed();
console.table({
  'warm p50 (ms, target < 5)': speed.warmP50Ms.toFixed(2),
  'warm p99 (ms, target < 20)': speed.warmP99Ms.toFixed(2),
  'cold p50 (ms, target < 150)': speed.coldP50Ms.toFixed(2),
  'cold p99 (ms)': speed.coldP99Ms.toFixed(2),
  'builds/s, 8 clients, warm': speed.buildsPerSecond8.toFixed(0),
  'warm p50 with gas simulation (ms)': speed.simulatedP50Ms.toFixed(2),
  'warm p99 with gas simulation (ms)': speed.simulatedP99Ms.toFixed(2),
});
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'routes.json'), `${JSON.stringify({ quality, rows, speed }, null, 2)}\n`);
console.log(`\nwritten ${path.join(out, 'routes.json')}`);
