import { ApiError } from '../http/errors.js';
import { checksum } from './checksum.js';
import { encodeSwap, planFromRoute } from './calldata.js';
import { pickSource, type SourceRegistry } from './liquidity-source.js';
import { gasModelFrom, wrapGas } from './onchain/gas-model.js';
import type { GasSimulator } from './onchain/gas-simulation.js';
import { minAmountOut, routeInfo, routeProblem, swapTypeOf, txValue, type FoundRoute } from './route-model.js';
import type { RouteRequest } from './route-request.js';
import type { RouteResponse } from './swap-api.js';
import { enabledSources, loadChainSettings, requireSetting, type ChainSettings, type ResolvedSource } from './swap-settings.js';
import { wrapDirection, wrapQuote, type WrapDirection } from './wrap.js';

/** Pure: a found route plus the request and settings -> the response with its calldata. */
export function buildResponse(req: RouteRequest, found: FoundRoute, settings: ChainSettings, sources: ResolvedSource[]): RouteResponse {
  const { route, meta } = found;
  const wrapped = requireSetting(settings, 'wrapped_native');
  const router = checksum(requireSetting(settings, 'router'));
  const approve = checksum(requireSetting(settings, 'token_approve'));
  // A source that broke the model's invariants must not produce calldata a wallet would sign.
  const problem = routeProblem(route, wrapped);
  if (problem) throw new ApiError('upstream_error', `the ${meta.source} source produced an inconsistent route: ${problem}`);
  const impact = meta.priceImpactBps ?? null;
  if (req.maxPriceImpactBps !== undefined && impact !== null && impact > req.maxPriceImpactBps) {
    throw new ApiError(
      'price_impact_too_high',
      `the route's price impact is ${impact} bps (${(impact / 100).toFixed(2)} %), above maxPriceImpactBps ${req.maxPriceImpactBps}`,
      { field: 'maxPriceImpactBps' },
    );
  }
  const excluded = new Set(req.excludePools ?? []);
  const banned = route.paths.flatMap((p) => p.hops).find((h) => excluded.has(h.pool.toLowerCase()));
  if (banned) throw new ApiError('no_route', `the only route found uses the excluded pool ${banned.pool}`);
  const minOut = minAmountOut(route.amountOut, req.slippageTolerance);
  const plan = planFromRoute(route, new Map(sources.map((s) => [s.name, s])), { minReturn: minOut, deadline: req.deadline });
  return {
    tokenIn: req.tokenIn,
    tokenOut: req.tokenOut,
    amountIn: route.amountIn.toString(),
    amountOut: route.amountOut.toString(),
    minAmountOut: minOut.toString(),
    gas: meta.gas.toString(),
    gasPrice: meta.gasPrice.toString(),
    gasUsd: meta.gasUsd,
    amountInUsd: meta.amountInUsd,
    amountOutUsd: meta.amountOutUsd,
    priceImpactBps: impact,
    aggregatorAddress: router,
    executorAddress: approve,
    executorData: encodeSwap(plan, { sender: req.sender, recipient: req.recipient }),
    value: txValue(route).toString(),
    swapType: swapTypeOf(route),
    routeInfo: routeInfo(route, meta),
  };
}

/** Native ↔ wrapped native: the router's swapWrap, amountOut == amountIn, no liquidity source. */
export function buildWrapResponse(req: RouteRequest, direction: WrapDirection, settings: ChainSettings): RouteResponse {
  const wrapped = requireSetting(settings, 'wrapped_native');
  const q = wrapQuote(req, direction, wrapped);
  const toOther = req.recipient.toLowerCase() !== req.sender.toLowerCase();
  return {
    tokenIn: req.tokenIn,
    tokenOut: req.tokenOut,
    amountIn: req.amountIn.toString(),
    amountOut: req.amountIn.toString(),
    minAmountOut: q.minOut.toString(),
    gas: String(wrapGas(direction, toOther, gasModelFrom(settings.gas_model))),
    gasPrice: (req.gasPrice ?? 0n).toString(),
    gasUsd: null,
    amountInUsd: null,
    amountOutUsd: null,
    // A wrap is 1:1: no price moves.
    priceImpactBps: 0,
    aggregatorAddress: checksum(requireSetting(settings, 'router')),
    executorAddress: checksum(requireSetting(settings, 'token_approve')),
    executorData: q.executorData,
    value: q.value.toString(),
    swapType: 'simple',
    routeInfo: { source: 'onchain', gasSource: 'model', paths: q.paths },
  };
}

export interface BuildDeps {
  swapConfig: string;
  env: NodeJS.ProcessEnv;
  registry: SourceRegistry;
  /** Simulates calldata for `gas` (absent: the model's figure is kept). */
  gasSimulator?: GasSimulator;
}

/**
 * Replaces the model's gas with a simulation of the exact calldata when the chain has a node, the
 * request and settings allow it, and the node takes state overrides. gasUsd follows the new figure.
 */
async function simulateGas(
  res: RouteResponse,
  req: RouteRequest,
  settings: ChainSettings,
  deps: BuildDeps,
  signal: AbortSignal,
  headroom = 0n,
) {
  const enabled = req.simulateGas ?? settings.gas_simulation ?? true;
  if (!enabled || !deps.gasSimulator || !settings.rpc_url || res.routeInfo.source !== 'onchain') return;
  let gas = await deps.gasSimulator.estimate(
    {
      rpcUrl: settings.rpc_url,
      sender: req.sender,
      to: res.aggregatorAddress,
      data: res.executorData,
      value: BigInt(res.value),
      tokenIn: req.tokenIn,
      amountIn: req.amountIn,
      spender: res.executorAddress,
    },
    signal,
  );
  if (gas === undefined) return;
  gas += headroom;
  const modelGas = Number(res.gas);
  if (res.gasUsd !== null && modelGas > 0) res.gasUsd = Math.round(((res.gasUsd * Number(gas)) / modelGas) * 1e6) / 1e6;
  res.gas = gas.toString();
  res.routeInfo.gasSource = 'simulation';
}

/** The edge: reads swap.yaml, asks the chain's liquidity source, encodes the answer. */
export async function buildRoute(req: RouteRequest, deps: BuildDeps, signal: AbortSignal): Promise<RouteResponse> {
  const settings = await loadChainSettings(deps.swapConfig, req.chain, deps.env);
  // Fail on missing addresses before spending an upstream call.
  for (const key of ['router', 'token_approve', 'wrapped_native'] as const) requireSetting(settings, key);
  const direction = wrapDirection(req.tokenIn, req.tokenOut, requireSetting(settings, 'wrapped_native'));
  if (direction) {
    const res = buildWrapResponse(req, direction, settings);
    // No liquidity source runs for a wrap: the node still prices its gas.
    if (req.gasPrice === undefined && settings.rpc_url && deps.gasSimulator) {
      const price = await deps.gasSimulator.gasPrice(settings.rpc_url, signal);
      if (price !== undefined) res.gasPrice = price.toString();
    }
    await simulateGas(res, req, settings, deps, signal);
    return res;
  }
  const sources = enabledSources(settings, req.includedSources);
  const source = pickSource(deps.registry, settings);
  const found = await source.findRoute(
    {
      chain: req.chain,
      tokenIn: req.tokenIn,
      tokenOut: req.tokenOut,
      amountIn: req.amountIn,
      sources,
      gasPrice: req.gasPrice,
      toOther: req.recipient.toLowerCase() !== req.sender.toLowerCase(),
      excludePools: req.excludePools,
    },
    settings,
    signal,
  );
  const res = buildResponse(req, found, settings, sources);
  await simulateGas(res, req, settings, deps, signal, found.meta.simulationHeadroom);
  return res;
}
