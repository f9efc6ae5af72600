/**
 * Gas estimate of a route on the router, per hop kind. Calibrated against `gasUsed` of executed
 * routes on the local chain (test/swap-chain); the figures there must stay within 20 %.
 */
export const GAS = {
  /** Router entry, deadline and min-return checks, the receiver balance reads, the event. */
  base: 60_000,
  /** Each parallel path: the pull through the approval pair and its bookkeeping. */
  perPath: 35_000,
  v2Hop: 60_000,
  v3Hop: 95_000,
  /** Each initialized tick a V3 swap crosses. */
  v3TickCross: 22_000,
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
