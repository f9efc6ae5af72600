import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { optimizeSplit, type SplitCandidate } from '../../backend/swap/onchain/split-optimizer.js';
import { getSqrtRatioAtTick, MAX_SQRT_RATIO, MAX_TICK, MIN_SQRT_RATIO, MIN_TICK, Q96 } from '../../backend/swap/onchain/v3-math.js';
import { quoteV2ExactIn } from '../../backend/swap/onchain/v2-math.js';
import { poolSet } from '../../bench/pool-sets.js';

const E18 = 10n ** 18n;
const v2 = (reserve: bigint, feeBps = 30, pool = 'p'): SplitCandidate => ({
  quote: (a) => quoteV2ExactIn(a, reserve, reserve, feeBps),
  gasCost: 0n,
  pools: [pool],
});

/** Exhaustive search over a 1 % grid for two or three paths. */
function gridBest(paths: SplitCandidate[], amount: bigint): bigint {
  let best = 0n;
  const n = 100n;
  for (let i = 0n; i <= n; i++) {
    for (let j = 0n; j <= (paths.length > 2 ? n - i : 0n); j++) {
      const a = (amount * i) / n;
      const b = paths.length > 2 ? (amount * j) / n : amount - a;
      const c = amount - a - (paths.length > 2 ? b : amount - a);
      const out = paths[0].quote(a) + paths[1].quote(paths.length > 2 ? b : amount - a) + (paths.length > 2 ? paths[2].quote(c) : 0n);
      if (out > best) best = out;
    }
  }
  return best;
}

describe('V3 tick math', () => {
  it('matches the published bounds and the price at tick 0', () => {
    assert.equal(getSqrtRatioAtTick(0), Q96);
    assert.equal(getSqrtRatioAtTick(MIN_TICK), MIN_SQRT_RATIO);
    assert.equal(getSqrtRatioAtTick(MAX_TICK), MAX_SQRT_RATIO);
    assert.throws(() => getSqrtRatioAtTick(MAX_TICK + 1), RangeError);
  });
});

describe('split optimizer', () => {
  it('spends exactly the input and beats a 1 % grid on equal pools', () => {
    const paths = [v2(1_000_000n * E18, 30, 'a'), v2(500_000n * E18, 25, 'b'), v2(200_000n * E18, 30, 'c')];
    const amount = 300_000n * E18 + 7n;
    const r = optimizeSplit(paths, amount)!;
    assert.equal(
      r.allocations.reduce((s, a) => s + a.amountIn, 0n),
      amount,
    );
    assert.ok(r.amountOut >= gridBest(paths, amount), 'at least the best 1 % grid split');
    assert.equal(r.allocations.length, 3);
  });

  it('never answers worse than the best single path, on generated V2/V3 sets', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const set = poolSet(seed, 2 + (seed % 7));
      for (const bps of [1n, 100n, 3000n]) {
        const amount = (set.deepest * bps) / 10_000n;
        const r = optimizeSplit(set.candidates, amount)!;
        const bestSingle = set.candidates.reduce((m, c) => (c.quote(amount) > m ? c.quote(amount) : m), 0n);
        assert.ok(r.netOut >= bestSingle, `${set.name} at ${bps} bps`);
        assert.equal(
          r.allocations.reduce((s, a) => s + a.amountIn, 0n),
          amount,
        );
      }
    }
  });

  it('is deterministic for the same input', () => {
    const set = poolSet(42, 6);
    const amount = set.deepest / 10n;
    assert.deepEqual(optimizeSplit(set.candidates, amount), optimizeSplit(set.candidates, amount));
  });

  it('keeps a single path when the gas of a second one costs more than it adds', () => {
    const cheap = v2(1_000_000n * E18, 30, 'a');
    const costly = { ...v2(1_000_000n * E18, 30, 'b'), gasCost: 10n ** 30n };
    const r = optimizeSplit([cheap, { ...costly }], 1_000n * E18)!;
    assert.equal(r.allocations.length, 1);
  });

  it('never uses two paths that share a pool together', () => {
    const a = { ...v2(1_000_000n * E18, 30), pools: ['shared', 'x'] };
    const b = { ...v2(1_000_000n * E18, 30), pools: ['shared', 'y'] };
    const r = optimizeSplit([a, b], 500_000n * E18)!;
    assert.equal(r.allocations.length, 1);
  });
});
