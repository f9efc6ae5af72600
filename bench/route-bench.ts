/**
 * Route-build latency and throughput against the local anvil chain, from `routeSpeed()` (the
 * route-quality benchmark's scenarios). Headline percentiles are over all samples; the spread is
 * the min–max of the same percentile over four consecutive chunks of the samples.
 */
import { judge, minMax, type Figure, type Target } from './bench-kit.js';
import { liveChainFigures } from './live-chain-bench.js';
import { routeSpeed } from './route-speed.js';
import { percentile } from './stats.js';

const CHUNKS = 4;

function chunked(samples: number[], p: number): [number, number] {
  const size = Math.ceil(samples.length / CHUNKS);
  const values = Array.from({ length: CHUNKS }, (_, i) => percentile(samples.slice(i * size, (i + 1) * size), p)).filter(Number.isFinite);
  return minMax(values);
}

function latency(name: string, samples: number[], p: number, target?: Target, note?: string): Figure {
  return judge({
    group: 'routes',
    name,
    unit: 'ms',
    median: percentile(samples, p),
    spread: chunked(samples, p),
    spreadKind: 'min–max',
    runs: CHUNKS,
    target,
    note: note ?? `p${p} of ${samples.length} builds; spread over ${CHUNKS} chunks`,
  });
}

export async function routeBuilds(rounds = 40): Promise<Figure[]> {
  const live = await liveChainFigures();
  const speed = await routeSpeed(rounds);
  const { warm, cold, simulated } = speed.raw;
  return [
    latency('route build, still chain (no new blocks), local node, p50 (compute + 1 local round trip, gas model)', warm, 50, {
      on: 'median',
      op: '<=',
      value: 5,
    }),
    latency('route build, still chain, p99', warm, 99, { on: 'median', op: '<=', value: 20 }),
    latency('route build, cold (empty cache, anvil), p50', cold, 50, { on: 'median', op: '<=', value: 150 }),
    latency('route build, cold, p99', cold, 99),
    latency('route build, warm, with gas simulation, p50', simulated, 50),
    {
      group: 'routes',
      name: 'gas simulation added latency (warm p50 with − without)',
      unit: 'ms',
      median: percentile(simulated, 50) - percentile(warm, 50),
      spread: null,
      spreadKind: 'none',
      runs: 1,
      note: 'eth_estimateGas with state overrides against the local anvil node; skip it with simulateGas: false or gas_simulation: false',
    },
    {
      group: 'routes',
      name: 'route builds per second, warm, 8 concurrent clients',
      unit: 'builds/s',
      median: speed.buildsPerSecond8,
      spread: null,
      spreadKind: 'none',
      runs: 1,
      note: 'one 3 s run over the 11 scenarios',
    },
    ...live,
  ];
}
