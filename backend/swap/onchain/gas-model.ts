/**
 * Gas estimate of a route by shape, used when the node cannot simulate the calldata (or the caller
 * skips the simulation) and by the split search to weigh a path's gas against its output.
 *
 * The defaults follow the production aggregator router's measured cost profile
 * (facts/dexrouter.md: the public router behind its upgrade proxy; V2 simple ~141.6k, V3 simple
 * ~176.9k, native output ~45k more through its WNativeRelayer, smartSwapTo ~10k more). A chain
 * whose router costs differ (the devchain's own router) sets `gas_model:` in swap.yaml.
 */
export interface GasModel {
  /** Router entry, checks, the receiver balance reads, events (including the proxy hop). */
  base: number;
  /** Each parallel path: its batch bookkeeping. */
  perPath: number;
  /** A V2 hop: the pull or transfer into the pair, the adapter call, pair.swap. */
  v2Hop: number;
  /** A V3 hop: the transfer to the adapter, pool.swap with its callback. */
  v3Hop: number;
  /** Each initialized tick a V3 swap crosses. */
  v3TickCross: number;
  /** A V4 hop: the transfer to the adapter, unlock, swap, sync/settle, take. */
  v4Hop: number;
  /** Each initialized tick a V4 swap crosses. */
  v4TickCross: number;
  /** A V4 hop whose output currency is native: the adapter takes native and wraps it. */
  v4NativeOut: number;
  /** Native input (wrapping msg.value instead of pulling through the approval pair); may be negative. */
  nativeIn: number;
  /** Native output (unwrapping and sending native to the receiver). */
  nativeOut: number;
  /** smartSwapTo / swapWrapTo instead of the msg.sender entry point. */
  recipient: number;
  /** swapWrap native → wrapped, and wrapped → native. */
  wrap: number;
  unwrap: number;
}

export const DEFAULT_GAS_MODEL: GasModel = {
  base: 59_000,
  perPath: 12_000,
  v2Hop: 70_500,
  v3Hop: 105_500,
  v3TickCross: 45_000,
  v4Hop: 100_000,
  v4TickCross: 35_000,
  v4NativeOut: 32_000,
  nativeIn: -7_000,
  nativeOut: 45_000,
  recipient: 10_000,
  wrap: 62_000,
  unwrap: 75_000,
};

/** swap.yaml `gas_model` keys (snake_case) → GasModel keys. */
export const GAS_MODEL_KEYS: Record<string, keyof GasModel> = {
  base: 'base',
  per_path: 'perPath',
  v2_hop: 'v2Hop',
  v3_hop: 'v3Hop',
  v3_tick_cross: 'v3TickCross',
  v4_hop: 'v4Hop',
  v4_tick_cross: 'v4TickCross',
  v4_native_out: 'v4NativeOut',
  native_in: 'nativeIn',
  native_out: 'nativeOut',
  recipient: 'recipient',
  wrap: 'wrap',
  unwrap: 'unwrap',
};

/** The defaults with the keys swap.yaml sets. */
export function gasModelFrom(overrides: Partial<Record<string, number>> | undefined): GasModel {
  const model = { ...DEFAULT_GAS_MODEL };
  for (const [key, value] of Object.entries(overrides ?? {})) {
    const field = GAS_MODEL_KEYS[key];
    if (field && value !== undefined) model[field] = value;
  }
  return model;
}

export interface GasShape {
  hops: { kind: 'v2' | 'v3' | 'v4'; ticksCrossed?: number; nativeOut?: boolean }[];
}

export function pathGas(path: GasShape, m: GasModel = DEFAULT_GAS_MODEL): number {
  let gas = m.perPath;
  for (const hop of path.hops) {
    const ticks = hop.ticksCrossed ?? 0;
    if (hop.kind === 'v2') gas += m.v2Hop;
    else if (hop.kind === 'v3') gas += m.v3Hop + m.v3TickCross * ticks;
    else gas += m.v4Hop + m.v4TickCross * ticks + (hop.nativeOut ? m.v4NativeOut : 0);
  }
  return gas;
}

export function routeGas(
  paths: GasShape[],
  nativeIn: boolean,
  nativeOut: boolean,
  m: GasModel = DEFAULT_GAS_MODEL,
  toOther = false,
): number {
  const gas =
    m.base +
    paths.reduce((sum, p) => sum + pathGas(p, m), 0) +
    (nativeIn ? m.nativeIn : 0) +
    (nativeOut ? m.nativeOut : 0) +
    (toOther ? m.recipient : 0);
  return Math.max(gas, 21_000);
}

export function wrapGas(direction: 'wrap' | 'unwrap', toOther: boolean, m: GasModel = DEFAULT_GAS_MODEL): number {
  return (direction === 'wrap' ? m.wrap : m.unwrap) + (toOther ? m.recipient : 0);
}
