/**
 * Gas estimate of a route on the router, per hop kind. Fitted to `gasUsed` of executed routes on
 * the local chain (1 to 6 paths, 1 to 3 hops, 0 to 8 tick crossings): within 12 % there (a fresh tick costs more
 * to cross than one crossed before, so real chains land lower), and
 * test/swap-chain checks every executed route stays within 20 %.
 */
export const GAS = {
  /** Router entry, deadline and min-return checks, the receiver balance reads, the event. */
  base: 61_000,
  /** Each parallel path: its batch bookkeeping. */
  perPath: 3_000,
  /** A V2 hop: the pull or transfer into the pair, the adapter call, pair.swap. */
  v2Hop: 55_000,
  /** A V3 hop: the transfer to the adapter, pool.swap with its callback, oracle and bitmap reads. */
  v3Hop: 107_000,
  /** Each initialized tick a V3 swap crosses (tick state updated, bitmap words read). */
  v3TickCross: 45_000,
  nativeIn: 25_000,
  nativeOut: 20_000,
} as const;

export interface GasShape {
  hops: { kind: 'v2' | 'v3'; ticksCrossed?: number }[];
}

export function pathGas(path: GasShape): number {
  let gas = GAS.perPath;
  for (const hop of path.hops) gas += hop.kind === 'v2' ? GAS.v2Hop : GAS.v3Hop + GAS.v3TickCross * (hop.ticksCrossed ?? 0);
  return gas;
}

export function routeGas(paths: GasShape[], nativeIn: boolean, nativeOut: boolean): number {
  return GAS.base + paths.reduce((sum, p) => sum + pathGas(p), 0) + (nativeIn ? GAS.nativeIn : 0) + (nativeOut ? GAS.nativeOut : 0);
}
