import { ApiError } from '../http/errors.js';
import { address, array, bytes, callData, encode, tuple, uint, type Encodable } from './abi-encoder.js';
import { isNative } from './route-request.js';
import { isReverse, type Hop, type Route } from './route-model.js';
import {
  ADDRESS_MASK,
  FULL_WEIGHT,
  REVERSE_BIT,
  SMART_SWAP_BY_ORDER_ID_SELECTOR,
  SMART_SWAP_TO_SELECTOR,
  WEIGHT_SHIFT,
} from './router-abi.js';
import type { ResolvedSource } from './swap-settings.js';

/**
 * The router's own view of a swap: batches (parallel paths) of hops, each hop splitting its input
 * over one or more pools by weight. Pure data; `encodeSwap` turns it into calldata.
 */
export interface PlanPool {
  adapter: string;
  /** Where the split input goes first: the pair for V2, the adapter for V3. */
  assetTo: string;
  pool: string;
  reverse: boolean;
  /** Out of 10000; the weights of one hop sum to exactly 10000. */
  weight: number;
  extraData: string;
}

export interface PlanHop {
  /** ERC-20 spent by this hop (the wrapped token for native input). */
  fromToken: string;
  pools: PlanPool[];
}

export interface RouterPlan {
  /** May be the native placeholder. */
  fromToken: string;
  toToken: string;
  amountIn: bigint;
  minReturn: bigint;
  deadline: number;
  /** Sums to exactly amountIn. */
  batchesAmount: bigint[];
  batches: PlanHop[][];
}

export function packRawData(pool: string, weight: number, reverse: boolean): bigint {
  if (!Number.isInteger(weight) || weight < 0 || weight > FULL_WEIGHT) throw new Error(`weight ${weight} is outside 0..10000`);
  return (reverse ? REVERSE_BIT : 0n) | (BigInt(weight) << WEIGHT_SHIFT) | (BigInt(pool) & ADDRESS_MASK);
}

/**
 * Weights out of 10000 for splitting one hop's input in proportion to `amounts`: floors, then the
 * rounding remainder goes to the largest share so the weights sum to exactly 10000.
 */
export function splitWeights(amounts: bigint[]): number[] {
  const total = amounts.reduce((a, b) => a + b, 0n);
  if (amounts.length === 0 || total <= 0n || amounts.some((a) => a < 0n))
    throw new Error('split amounts must be non-negative with a positive sum');
  const weights = amounts.map((a) => Number((a * BigInt(FULL_WEIGHT)) / total));
  const rest = FULL_WEIGHT - weights.reduce((a, b) => a + b, 0);
  let largest = 0;
  amounts.forEach((a, i) => {
    if (a > amounts[largest]) largest = i;
  });
  weights[largest] += rest;
  return weights;
}

/** Adapter `moreInfo` per source kind (facts sheet, adapters table). */
export function adapterExtraData(hop: Hop, source: ResolvedSource): string {
  if (source.kind === 'v3') {
    const inner = encode([address(hop.tokenIn), address(hop.tokenOut), uint(hop.fee ?? 0)]);
    return encode([uint(0n), bytes(inner)]);
  }
  if (source.dynamic_fee) return encode([uint(BigInt(source.fee_bps ?? 0))]);
  return '0x';
}

const ZERO_POOL = '0x0000000000000000000000000000000000000000';

/**
 * A V4 hop (facts/uniswap-v4.md, the router's V4 adapter convention): the input goes to the
 * adapter, rawData's pool bits are 0 (the adapter ignores them), and moreInfo is
 * abi.encode(address tokenIn, address tokenOut, uint24 fee, int24 tickSpacing) with address(0)
 * for a native currency.
 */
function planV4Pool(hop: Hop, source: ResolvedSource): PlanPool {
  const adapter = source.v4?.adapter;
  if (!hop.v4) throw new Error(`V4 hop through ${source.name} without its pool key`);
  if (!adapter)
    throw new ApiError('config_missing', `swap.yaml: sources.${source.name}.v4.adapter is not set (needed for V4 hops; no v4 adapter)`);
  return {
    adapter,
    assetTo: adapter,
    pool: ZERO_POOL,
    reverse: isReverse(hop),
    weight: FULL_WEIGHT,
    extraData: encode([address(hop.v4.currencyIn), address(hop.v4.currencyOut), uint(hop.v4.fee), uint(hop.v4.tickSpacing)]),
  };
}

/** One hop of the route model as one pool with the whole hop input (weight 10000). */
function planPool(hop: Hop, source: ResolvedSource): PlanPool {
  if (hop.kind === 'v4') return planV4Pool(hop, source);
  return {
    adapter: source.adapter,
    assetTo: source.kind === 'v2' ? hop.pool : source.adapter,
    pool: hop.pool,
    reverse: isReverse(hop),
    weight: FULL_WEIGHT,
    extraData: adapterExtraData(hop, source),
  };
}

/**
 * Route model -> router plan: each path becomes one batch with exactly its input, each hop one pool.
 * Parallel paths use batches (exact wei amounts) rather than weights, so no rounding dust is left.
 */
export function planFromRoute(
  route: Route,
  sources: ReadonlyMap<string, ResolvedSource>,
  opts: { minReturn: bigint; deadline: number },
): RouterPlan {
  const batches = route.paths.map((path) =>
    path.hops.map((hop): PlanHop => {
      const source = sources.get(hop.source);
      if (!source) throw new Error(`no settings for source ${hop.source}`);
      return { fromToken: hop.tokenIn, pools: [planPool(hop, source)] };
    }),
  );
  return {
    fromToken: route.tokenIn,
    toToken: route.tokenOut,
    amountIn: route.amountIn,
    minReturn: opts.minReturn,
    deadline: opts.deadline,
    batchesAmount: route.paths.map((p) => p.amountIn),
    batches,
  };
}

/** Checks the plan's own invariants before encoding; a broken plan must never reach a wallet. */
export function planProblem(plan: RouterPlan): string | undefined {
  if (plan.batches.length !== plan.batchesAmount.length) return 'batches and batchesAmount differ in length';
  const sum = plan.batchesAmount.reduce((a, b) => a + b, 0n);
  if (sum !== plan.amountIn) return `batchesAmount sums to ${sum}, not ${plan.amountIn}`;
  for (const [i, batch] of plan.batches.entries()) {
    if (batch.length === 0) return `batch ${i} has no hops`;
    for (const [j, hop] of batch.entries()) {
      if (hop.pools.length === 0) return `batch ${i} hop ${j} has no pools`;
      const total = hop.pools.reduce((a, p) => a + p.weight, 0);
      if (total !== FULL_WEIGHT) return `batch ${i} hop ${j} weights sum to ${total}, not 10000`;
    }
    if (isNative(batch[0].fromToken)) return `batch ${i} starts at the native placeholder instead of the wrapped token`;
  }
  return undefined;
}

/** `smartSwapByOrderId` calldata, or `smartSwapTo` with the receiver when it is not the sender. */
export function encodeSwap(plan: RouterPlan, who: { sender: string; recipient: string }): string {
  const problem = planProblem(plan);
  if (problem) throw new Error(`invalid router plan: ${problem}`);
  const baseRequest = tuple([
    uint(BigInt(plan.fromToken)),
    address(plan.toToken),
    uint(plan.amountIn),
    uint(plan.minReturn),
    uint(plan.deadline),
  ]);
  const batches = array(
    plan.batches.map((batch) =>
      array(
        batch.map((hop) =>
          tuple([
            array(hop.pools.map((p) => address(p.adapter))),
            array(hop.pools.map((p) => address(p.assetTo))),
            array(hop.pools.map((p) => uint(packRawData(p.pool, p.weight, p.reverse)))),
            array(hop.pools.map((p) => bytes(p.extraData))),
            uint(BigInt(hop.fromToken)),
          ]),
        ),
      ),
    ),
  );
  const tail: Encodable[] = [baseRequest, array(plan.batchesAmount.map((a) => uint(a))), batches, array([])];
  const orderId = uint(0n);
  if (who.recipient.toLowerCase() === who.sender.toLowerCase()) return callData(SMART_SWAP_BY_ORDER_ID_SELECTOR, [orderId, ...tail]);
  return callData(SMART_SWAP_TO_SELECTOR, [orderId, address(who.recipient), ...tail]);
}
