/**
 * The hookless V4 pools a pair could have (facts: knowledge-web-chain.md §8): the SDK's standard
 * fee / tick-spacing pairs, the newer default tiers, and the source's own fee tiers with the
 * interface's spacing rule (2 × fee / 100). Their PoolIds are computed, not searched for, so
 * no log history is needed and nodes that refuse eth_getLogs still serve V4 routes.
 */
import { AbiCoder, keccak256 } from 'ethers';
import type { FactoryQuery } from './pool-lookup.js';
import type { ResolvedSource } from '../swap-settings.js';

const ZERO = '0x0000000000000000000000000000000000000000';
const coder = AbiCoder.defaultAbiCoder();
/** Uniswap SDK TICK_SPACINGS and the interface's newer default tiers. */
const STANDARD: [number, number][] = [
  [100, 1],
  [500, 10],
  [3000, 60],
  [10000, 200],
  [75, 2],
  [375, 8],
  [2500, 50],
  [9000, 180],
];

export const spacingFor = (fee: number): number => STANDARD.find(([f]) => f === fee)?.[1] ?? Math.max(Math.round((2 * fee) / 100), 1);

const ids = new Map<string, string>();

export function poolId(c0: string, c1: string, fee: number, spacing: number): string {
  const k = `${c0}:${c1}:${fee}:${spacing}`;
  let id = ids.get(k);
  if (!id) {
    id = keccak256(coder.encode(['address', 'address', 'uint24', 'int24', 'address'], [c0, c1, fee, spacing, ZERO])).toLowerCase();
    if (ids.size > 50_000) ids.clear();
    ids.set(k, id);
  }
  return id;
}

/** Lookups of every candidate hookless pool of `pairs` for the sources with a `v4:` block. */
export function v4Queries(sources: ResolvedSource[], pairs: [string, string][], wrapped: string): FactoryQuery[] {
  const out: FactoryQuery[] = [];
  for (const src of sources) {
    if (!src.v4?.pool_manager) continue;
    const tiers = new Map<string, [number, number]>();
    for (const [f, s] of STANDARD) tiers.set(`${f}/${s}`, [f, s]);
    for (const f of [...(src.fee_tiers ?? []), ...(src.v4.fee_tiers ?? [])]) tiers.set(`${f}/${spacingFor(f)}`, [f, spacingFor(f)]);
    for (const [a, b] of pairs) {
      const as = a === wrapped ? [a, ZERO] : [a];
      const bs = b === wrapped ? [b, ZERO] : [b];
      for (const x of as)
        for (const y of bs) {
          if (x === y) continue;
          const [c0, c1] = BigInt(x) < BigInt(y) ? [x, y] : [y, x];
          const t0 = c0 === ZERO ? wrapped : c0;
          const t1 = c1 === ZERO ? wrapped : c1;
          if (t0 === t1) continue;
          for (const [fee, spacing] of tiers.values()) {
            out.push({
              source: src.name,
              kind: 'v4',
              factory: src.v4.pool_manager.toLowerCase(),
              tokenA: t0,
              tokenB: t1,
              fee,
              v4: { id: poolId(c0, c1, fee, spacing), currency0: c0, currency1: c1, tickSpacing: spacing },
            });
          }
        }
    }
  }
  return out;
}
