import { ApiError } from '../http/errors.js';
import { checksum } from './checksum.js';
import { encodeSwap, planFromRoute } from './calldata.js';
import { pickSource, type SourceRegistry } from './liquidity-source.js';
import {
  minAmountOut,
  routeInfo,
  routeProblem,
  swapTypeOf,
  txValue,
  type FoundRoute,
  type RouteInfo,
  type SwapType,
} from './route-model.js';
import type { RouteRequest } from './route-request.js';
import { enabledSources, loadChainSettings, requireSetting, type ChainSettings, type ResolvedSource } from './swap-settings.js';

/** Spec 2.3: amounts as decimal strings, USD values as numbers or null. */
export interface RouteResponse {
  tokenIn: string;
  tokenOut: string;
  amountIn: string;
  amountOut: string;
  minAmountOut: string;
  gas: string;
  gasPrice: string;
  gasUsd: number | null;
  amountInUsd: number | null;
  amountOutUsd: number | null;
  aggregatorAddress: string;
  executorAddress: string;
  executorData: string;
  value: string;
  swapType: SwapType;
  routeInfo: RouteInfo;
}

/** Pure: a found route plus the request and settings -> the response with its calldata. */
export function buildResponse(req: RouteRequest, found: FoundRoute, settings: ChainSettings, sources: ResolvedSource[]): RouteResponse {
  const { route, meta } = found;
  const wrapped = requireSetting(settings, 'wrapped_native');
  const router = checksum(requireSetting(settings, 'router'));
  const approve = checksum(requireSetting(settings, 'token_approve'));
  // A source that broke the model's invariants must not produce calldata a wallet would sign.
  const problem = routeProblem(route, wrapped);
  if (problem) throw new ApiError('upstream_error', `the ${meta.source} source produced an inconsistent route: ${problem}`);
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
    aggregatorAddress: router,
    executorAddress: approve,
    executorData: encodeSwap(plan, { sender: req.sender, recipient: req.recipient }),
    value: txValue(route).toString(),
    swapType: swapTypeOf(route),
    routeInfo: routeInfo(route, meta),
  };
}

/** The edge: reads swap.yaml, asks the chain's liquidity source, encodes the answer. */
export async function buildRoute(
  req: RouteRequest,
  deps: { swapConfig: string; env: NodeJS.ProcessEnv; registry: SourceRegistry },
  signal: AbortSignal,
): Promise<RouteResponse> {
  const settings = await loadChainSettings(deps.swapConfig, req.chain, deps.env);
  // Fail on missing addresses before spending an upstream call.
  for (const key of ['router', 'token_approve', 'wrapped_native'] as const) requireSetting(settings, key);
  const sources = enabledSources(settings, req.includedSources);
  const source = pickSource(deps.registry, settings);
  const found = await source.findRoute(
    { chain: req.chain, tokenIn: req.tokenIn, tokenOut: req.tokenOut, amountIn: req.amountIn, sources, gasPrice: req.gasPrice },
    settings,
    signal,
  );
  return buildResponse(req, found, settings, sources);
}
