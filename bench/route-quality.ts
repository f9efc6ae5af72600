/**
 * `npm run bench:routes`: route quality and build speed of the on-chain router.
 *
 * Quality, on generated pool sets (2 to 8 candidate paths, V2 and V3 mixed, trade sizes from
 * 0.01 % to 30 % of the deepest pool): the output as a ratio to
 *   - a reference optimum: greedy marginal allocation in 1/4000 steps (the exact optimum of
 *     that grid, since every path's output is concave in its input), refined by pairwise
 *     transfers down to 1/4,000,000 of the amount;
 *   - the best single path;
 *   - a 5 %-step split search (greedy marginal allocation in 5 % chunks, which equals the
 *     exhaustive search of the 5 % grid for concave outputs).
 * Speed, against the local chain (devchain): warm-cache build latency p50/p99 through the real
 * HTTP listener, and cold latency (fresh source, empty cache) of the on-chain source itself.
 */
import { performance } from 'node:perf_hooks';
import { optimizeSplit, type SplitCandidate } from '../backend/swap/onchain/split-optimizer.js';
import { poolSet } from './pool-sets.js';
import { median, percentile, ratio } from './stats.js';

function greedy(paths: SplitCandidate[], amount: bigint, steps: bigint): bigint[] {
  const alloc = paths.map(() => 0n);
  const chunk = amount / steps;
  const first = amount - chunk * (steps - 1n);
  for (let s = 0n; s < steps; s++) {
    const step = s === 0n ? first : chunk;
    let best = 0;
    let gain = -1n;
    paths.forEach((p, i) => {
      const g = p.quote(alloc[i] + step) - p.quote(alloc[i]);
      if (g > gain) {
        gain = g;
        best = i;
      }
    });
    alloc[best] += step;
  }
  return alloc;
}

function refine(paths: SplitCandidate[], alloc: bigint[], amount: bigint): void {
  for (let delta = amount / 8000n; delta > amount / 4_000_000n && delta > 0n; delta /= 2n) {
    let improved = true;
    while (improved) {
      improved = false;
      for (let i = 0; i < paths.length; i++) {
        for (let j = 0; j < paths.length; j++) {
          if (i === j || alloc[i] < delta) continue;
          const now = paths[i].quote(alloc[i]) + paths[j].quote(alloc[j]);
          const moved = paths[i].quote(alloc[i] - delta) + paths[j].quote(alloc[j] + delta);
          if (moved > now) {
            alloc[i] -= delta;
            alloc[j] += delta;
            improved = true;
          }
        }
      }
    }
  }
}

const total = (paths: SplitCandidate[], alloc: bigint[]) => alloc.reduce((s, a, i) => s + paths[i].quote(a), 0n);

export interface QualityRow {
  case: string;
  sizeBps: number;
  paths: number;
  vsReference: number;
  vsBestSingle: number;
  vsFivePercent: number;
  optimizerMs: number;
}

export function routeQuality(seeds = 8, sizesBps = [1, 10, 100, 1000, 3000]): QualityRow[] {
  const rows: QualityRow[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const set = poolSet(seed * 7919, 2 + ((seed - 1) % 7));
    const paths = set.candidates;
    for (const bps of sizesBps) {
      const amount = (set.deepest * BigInt(bps)) / 10_000n;
      const t0 = performance.now();
      const ours = optimizeSplit(paths, amount)!;
      const optimizerMs = performance.now() - t0;
      const reference = greedy(paths, amount, 4000n);
      refine(paths, reference, amount);
      const refOut = total(paths, reference);
      const single = paths.reduce((m, p) => (p.quote(amount) > m ? p.quote(amount) : m), 0n);
      const five = total(paths, greedy(paths, amount, 20n));
      rows.push({
        case: set.name,
        sizeBps: bps,
        paths: paths.length,
        vsReference: ratio(ours.amountOut, refOut),
        vsBestSingle: ratio(ours.amountOut, single),
        vsFivePercent: ratio(ours.amountOut, five),
        optimizerMs,
      });
    }
  }
  return rows;
}

export function summarizeQuality(rows: QualityRow[]) {
  return {
    cases: rows.length,
    minVsReference: Math.min(...rows.map((r) => r.vsReference)),
    minVsBestSingle: Math.min(...rows.map((r) => r.vsBestSingle)),
    medianVsFivePercent: median(rows.map((r) => r.vsFivePercent)),
    optimizerP50Ms: median(rows.map((r) => r.optimizerMs)),
    optimizerP99Ms: percentile(
      rows.map((r) => r.optimizerMs),
      99,
    ),
  };
}
