import type { Hop, RoutePath } from '../route-model.js';
import type { BlockRef, PoolState } from './pool-reader.js';

/**
 * A simulation runs in the latest block's context. A V2 pair that traded in that very block skips
 * its price-accumulator update there (timeElapsed = 0) but pays it, two cold SSTOREs, when the
 * wallet's transaction lands in a later block; a V3 pool likewise writes a new oracle observation
 * (its timestamp is not read, so V3 hops always get the allowance). V4 pools keep no oracle.
 * A pair minted in that second still has zero accumulators: its first later swap writes them from
 * zero (2 × 22,100 gas for cold zero-to-non-zero stores) instead of updating them.
 */
const V2_ACCUMULATOR_GAS = 12_000n;
const V2_FIRST_ACCUMULATOR_GAS = 46_000n;
const V3_ORACLE_GAS = 8_000n;

function hopHeadroom(hop: Hop, states: Map<string, PoolState>, block: BlockRef): bigint {
  if (hop.kind === 'v3') return V3_ORACLE_GAS;
  if (hop.kind !== 'v2') return 0n;
  const s = states.get(hop.pool.toLowerCase());
  const last = s?.kind === 'v2' ? s.state.timestampLast : undefined;
  if (last !== undefined && block.timestamp !== undefined && last !== block.timestamp) return 0n;
  return s?.kind === 'v2' && s.state.accumulatorsZero ? V2_FIRST_ACCUMULATOR_GAS : V2_ACCUMULATOR_GAS;
}

/** The gas a simulation at the latest block cannot see for this route (see above). */
export function simulationHeadroom(paths: RoutePath[], states: Map<string, PoolState>, block: BlockRef): bigint {
  return paths.reduce((sum, p) => sum + p.hops.reduce((s, h) => s + hopHeadroom(h, states, block), 0n), 0n);
}
