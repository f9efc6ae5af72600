/**
 * Splits an input amount over candidate paths to maximise output net of gas. Pure and
 * deterministic: the same paths and amount always give the same allocation.
 *
 * Method: every path alone (the best single path is the floor), then a greedy fill in 5 % chunks
 * over a set of pool-disjoint paths (marginal output per chunk), refined by pairwise transfers
 * with halving steps down to 1/5120 of the amount, and finally dropping any path whose fixed gas
 * cost outweighs what it adds. Paths that share a pool are never used together, because their
 * quotes would not be independent.
 */
export interface SplitCandidate {
  /** Output of the whole path for an input (exact, integer). */
  quote(amountIn: bigint): bigint;
  /** Gas cost of using this path, in output-token units (0n when unknown). */
  gasCost: bigint;
  /** Identities of the pools the path touches. */
  pools: readonly string[];
}

export interface Allocation {
  index: number;
  amountIn: bigint;
  amountOut: bigint;
}

export interface SplitResult {
  allocations: Allocation[];
  amountOut: bigint;
  netOut: bigint;
}

const GREEDY_CHUNKS = 20n;
const REFINE_LEVELS = 8;

class Evaluator {
  private readonly cache: Map<bigint, bigint>[];
  constructor(private readonly paths: readonly SplitCandidate[]) {
    this.cache = paths.map(() => new Map());
  }
  out(i: number, amount: bigint): bigint {
    if (amount <= 0n) return 0n;
    const c = this.cache[i];
    let v = c.get(amount);
    if (v === undefined) {
      v = this.paths[i].quote(amount);
      c.set(amount, v);
    }
    return v;
  }
}

function total(ev: Evaluator, paths: readonly SplitCandidate[], alloc: Map<number, bigint>): { out: bigint; net: bigint } {
  let out = 0n;
  let net = 0n;
  for (const [i, a] of alloc) {
    if (a <= 0n) continue;
    const o = ev.out(i, a);
    out += o;
    net += o - paths[i].gasCost;
  }
  return { out, net };
}

function result(ev: Evaluator, paths: readonly SplitCandidate[], alloc: Map<number, bigint>): SplitResult {
  const allocations = [...alloc]
    .filter(([, a]) => a > 0n)
    .sort(([a], [b]) => a - b)
    .map(([index, amountIn]) => ({ index, amountIn, amountOut: ev.out(index, amountIn) }));
  const { out, net } = total(ev, paths, alloc);
  return { allocations, amountOut: out, netOut: net };
}

/** Indices of mutually pool-disjoint paths, best single-path output first. */
function disjointSet(order: number[], paths: readonly SplitCandidate[]): number[] {
  const used = new Set<string>();
  const chosen: number[] = [];
  for (const i of order) {
    if (paths[i].pools.some((p) => used.has(p))) continue;
    paths[i].pools.forEach((p) => used.add(p));
    chosen.push(i);
  }
  return chosen;
}

function greedy(ev: Evaluator, set: number[], amountIn: bigint): Map<number, bigint> {
  const alloc = new Map<number, bigint>(set.map((i) => [i, 0n]));
  const chunk = amountIn / GREEDY_CHUNKS;
  // The first step carries the division remainder, so the steps add up to exactly amountIn.
  const steps =
    chunk === 0n ? [amountIn] : [chunk + (amountIn - chunk * GREEDY_CHUNKS), ...Array<bigint>(Number(GREEDY_CHUNKS) - 1).fill(chunk)];
  for (const step of steps) {
    let best = set[0];
    let bestGain = -1n;
    for (const i of set) {
      const a = alloc.get(i)!;
      const gain = ev.out(i, a + step) - ev.out(i, a);
      if (gain > bestGain) {
        bestGain = gain;
        best = i;
      }
    }
    alloc.set(best, alloc.get(best)! + step);
  }
  return alloc;
}

function refine(ev: Evaluator, paths: readonly SplitCandidate[], alloc: Map<number, bigint>, amountIn: bigint): void {
  const set = [...alloc.keys()];
  let delta = amountIn / (GREEDY_CHUNKS * 2n);
  for (let level = 0; level < REFINE_LEVELS && delta > 0n; level++) {
    let improved = true;
    while (improved) {
      improved = false;
      for (const from of set) {
        for (const to of set) {
          if (from === to) continue;
          const a = alloc.get(from)!;
          if (a < delta) continue;
          const b = alloc.get(to)!;
          const before = ev.out(from, a) + ev.out(to, b);
          const after = ev.out(from, a - delta) + ev.out(to, b + delta);
          if (after > before) {
            alloc.set(from, a - delta);
            alloc.set(to, b + delta);
            improved = true;
          }
        }
      }
    }
    delta /= 2n;
  }
}

/** Moves everything off paths whose gas cost is more than their contribution. */
function pruneByGas(ev: Evaluator, paths: readonly SplitCandidate[], alloc: Map<number, bigint>, amountIn: bigint): Map<number, bigint> {
  let current = alloc;
  for (;;) {
    const active = [...current].filter(([, a]) => a > 0n).map(([i]) => i);
    if (active.length <= 1) return current;
    let best = current;
    let bestNet = total(ev, paths, current).net;
    for (const drop of active) {
      const rest = active.filter((i) => i !== drop);
      const trial = greedy(ev, rest, amountIn);
      refine(ev, paths, trial, amountIn);
      const net = total(ev, paths, trial).net;
      if (net > bestNet) {
        bestNet = net;
        best = trial;
      }
    }
    if (best === current) return current;
    current = best;
  }
}

export function optimizeSplit(paths: readonly SplitCandidate[], amountIn: bigint): SplitResult | undefined {
  if (paths.length === 0 || amountIn <= 0n) return undefined;
  const ev = new Evaluator(paths);
  const singles = paths.map((p, i) => ({ i, net: ev.out(i, amountIn) - p.gasCost }));
  const order = [...singles].sort((a, b) => (b.net > a.net ? 1 : b.net < a.net ? -1 : a.i - b.i)).map((s) => s.i);
  const bestSingle = new Map([[order[0], amountIn]]);
  let best = result(ev, paths, bestSingle);
  if (best.amountOut === 0n) return undefined;
  const set = disjointSet(order, paths).filter((i) => ev.out(i, amountIn / GREEDY_CHUNKS || 1n) > 0n);
  if (set.length > 1) {
    let alloc = greedy(ev, set, amountIn);
    refine(ev, paths, alloc, amountIn);
    alloc = pruneByGas(ev, paths, alloc, amountIn);
    const split = result(ev, paths, alloc);
    if (split.netOut > best.netOut) best = split;
  }
  return best;
}
