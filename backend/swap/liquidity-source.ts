import { ApiError } from '../http/errors.js';
import type { FoundRoute } from './route-model.js';
import type { ChainName } from './route-request.js';
import type { ChainSettings, ResolvedSource } from './swap-settings.js';

/** What a liquidity source is asked: the validated request reduced to what routing needs. */
export interface SourceRequest {
  chain: ChainName;
  /** Request tokens, checksummed; may be the native placeholder. */
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  /** The sources this request may use, already resolved against swap.yaml. */
  sources: ResolvedSource[];
  /** The caller's gas price; it wins over the source's own estimate. */
  gasPrice?: bigint;
  /** The recipient is not the sender (smartSwapTo): the gas model adds its extra cost. */
  toOther?: boolean;
  /** Pools (lower-case addresses or V4 PoolIds) the route must not use. */
  excludePools?: string[];
}

/**
 * A way to find a route (DESIGN 5): `aggregator` over HTTP or `onchain` over JSON-RPC. It returns
 * a route that satisfies `routeProblem` (paths spend exactly amountIn), or throws an ApiError:
 * 400 `no_route` when nothing connects the tokens, 500 `upstream_error` when it failed.
 */
export interface LiquiditySource {
  readonly name: 'aggregator' | 'onchain';
  findRoute(req: SourceRequest, settings: ChainSettings, signal: AbortSignal): Promise<FoundRoute>;
}

export type LiquidityKind = LiquiditySource['name'];

/**
 * The registered sources. The on-chain source plugs in here (`registry.onchain = …`) once it
 * exists; until then a chain set to `liquidity: onchain` gets a clear 500, never a fake route.
 */
export type SourceRegistry = Partial<Record<LiquidityKind, LiquiditySource>>;

export function pickSource(registry: SourceRegistry, settings: ChainSettings): LiquiditySource {
  const kind: LiquidityKind = settings.liquidity ?? 'onchain';
  const source = registry[kind];
  if (!source) {
    throw new ApiError(
      'upstream_error',
      `chains.${settings.chain}.liquidity is '${kind}', but the ${kind} liquidity source is not available in this build yet; set liquidity: aggregator in swap.yaml`,
    );
  }
  return source;
}
