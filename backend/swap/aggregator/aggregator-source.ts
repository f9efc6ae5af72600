import { ApiError } from '../../http/errors.js';
import type { LiquiditySource, SourceRequest } from '../liquidity-source.js';
import type { FoundRoute, RouteMeta } from '../route-model.js';
import { requireSetting, type ChainSettings } from '../swap-settings.js';
import { fetchAggregatorRoute, type AggregatorSummary } from './aggregator-client.js';
import { exchangeMap, mapAggregatorRoute, v4ExchangeSet } from './aggregator-mapping.js';

function usdNumber(v: string | number | null | undefined): number | null {
  if (v === undefined || v === null || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** Gas figures from the answer; the caller's gas price wins, and gasUsd follows it. */
export function gasMeta(summary: AggregatorSummary, requestGasPrice?: bigint): Pick<RouteMeta, 'gas' | 'gasPrice' | 'gasUsd'> {
  const gas = BigInt(summary.gas ?? '0');
  const answered = summary.gasPrice === undefined ? undefined : BigInt(summary.gasPrice);
  const gasPrice = requestGasPrice ?? answered ?? 0n;
  let gasUsd = usdNumber(summary.gasUsd);
  if (gasUsd !== null && answered !== gasPrice) {
    // Priced at another gas price: rescale, or give up when the answer's own price is unknown.
    gasUsd = answered ? (gasUsd * Number(gasPrice)) / Number(answered) : null;
  }
  return { gas, gasPrice, gasUsd };
}

/**
 * The `aggregator` liquidity source (DESIGN 5): asks only for the exchanges of the enabled sources.
 * A route through any other exchange is never used: one retry excludes those exchanges, and a
 * still unusable answer is 400 `no_route`. Routes are never shrunk to the paths that remain.
 */
export class AggregatorSource implements LiquiditySource {
  readonly name = 'aggregator' as const;

  async findRoute(req: SourceRequest, settings: ChainSettings, signal: AbortSignal): Promise<FoundRoute> {
    const wrapped = requireSetting(settings, 'wrapped_native');
    const byExchange = exchangeMap(req.sources);
    const v4Exchanges = v4ExchangeSet(req.sources);
    for (const s of req.sources) {
      if (!s.exchanges || s.exchanges.length === 0) {
        throw new ApiError('config_missing', `swap.yaml: chains.${settings.chain}.sources.${s.name}.exchanges is not set`);
      }
    }
    const includedSources = [...new Set(req.sources.flatMap((s) => [...(s.exchanges ?? []), ...(s.v4?.exchanges ?? [])]))];
    const excluded: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const summary = await fetchAggregatorRoute(
        settings,
        {
          tokenIn: req.tokenIn,
          tokenOut: req.tokenOut,
          amountIn: req.amountIn,
          includedSources,
          excludedSources: excluded,
          gasPrice: req.gasPrice,
        },
        signal,
      );
      const mapped = mapAggregatorRoute(summary, {
        tokenIn: req.tokenIn,
        tokenOut: req.tokenOut,
        amountIn: req.amountIn,
        wrapped,
        byExchange,
        v4Exchanges,
      });
      if (mapped.ok) {
        return {
          route: mapped.route,
          meta: {
            source: 'aggregator',
            // The aggregator's own estimate: a figure, not a simulation of this calldata.
            gasSource: 'model',
            ...gasMeta(summary, req.gasPrice),
            amountInUsd: usdNumber(summary.amountInUsd),
            amountOutUsd: usdNumber(summary.amountOutUsd),
          },
        };
      }
      if ('malformed' in mapped) throw new ApiError('upstream_error', `aggregator returned an unusable route: ${mapped.malformed}`);
      if ('empty' in mapped)
        throw new ApiError(
          'no_route',
          `The aggregator found no route from ${req.tokenIn} to ${req.tokenOut} through ${req.sources.map((s) => s.name).join(', ')}.`,
        );
      if (attempt === 0) {
        excluded.push(...mapped.unsupported);
        continue;
      }
      throw new ApiError(
        'no_route',
        `The aggregator's route uses unsupported exchanges (${mapped.unsupported.join(', ')}) even after excluding them; no route through ${req.sources.map((s) => s.name).join(', ')} only.`,
      );
    }
    throw new Error('unreachable');
  }
}
