import { ApiError } from '../../http/errors.js';
import type { ChainName } from '../route-request.js';
import type { ResolvedSource } from '../swap-settings.js';
import { pairKey } from './path-candidates.js';
import type { FactoryQuery, PoolLookup } from './pool-lookup.js';
import type { BlockRef, PoolRef } from './pool-reader.js';
import { v4Queries } from './v4-candidates.js';

/** Pools found for a request's token set, per block hash (a repeated request skips the work). */
export type DiscoveryCache = Map<string, { refs: PoolRef[]; byPair: Map<string, PoolRef[]> }>;

const CACHE_ENTRIES = 64;

export interface DiscoveryInput {
  chain: ChainName;
  sources: ResolvedSource[];
  sequences: string[][];
  tokenIn: string;
  tokenOut: string;
  wrapped: string;
  usdTokens: string[];
  /** Routable V4 pools of the enabled sources (from the PoolManagers' Initialize logs). */
  v4Pools?: PoolRef[];
  /** Pools the request excludes (lower-case addresses or PoolIds). */
  excludePools?: string[];
}

/**
 * The factory (and V4 PoolId) lookups a request needs: every pair of the candidate paths, the gas
 * price (wrapped → output) and the USD prices (token → usd_tokens); V2 one pair per factory, V3
 * one pool per configured fee tier. Pure, so they can be asked in the head's round trip.
 */
export function discoveryQueries(input: DiscoveryInput): { pairs: Map<string, [string, string]>; queries: FactoryQuery[] } {
  const pairs = new Map<string, [string, string]>();
  const addPair = (a: string, b: string) => a !== b && pairs.set(pairKey(a, b), [a, b]);
  for (const s of input.sequences) for (let i = 0; i + 1 < s.length; i++) addPair(s[i], s[i + 1]);
  for (const t of [input.tokenIn, input.tokenOut, input.wrapped]) for (const u of input.usdTokens) addPair(t, u);
  addPair(input.tokenIn, input.wrapped);
  addPair(input.wrapped, input.tokenOut);

  const queries: FactoryQuery[] = [];
  for (const src of input.sources) {
    if (!src.factory) throw new ApiError('config_missing', `swap.yaml: chains.${input.chain}.sources.${src.name}.factory is not set`);
    const fees = src.kind === 'v2' ? [src.fee_bps ?? 30] : (src.fee_tiers ?? []);
    if (src.kind === 'v3' && fees.length === 0) {
      throw new ApiError('config_missing', `swap.yaml: chains.${input.chain}.sources.${src.name}.fee_tiers is not set`);
    }
    for (const [a, b] of pairs.values())
      for (const fee of fees) queries.push({ source: src.name, kind: src.kind, factory: src.factory, tokenA: a, tokenB: b, fee });
  }
  queries.push(...v4Queries(input.sources, [...pairs.values()], input.wrapped));
  return { pairs, queries };
}

/**
 * Asks each enabled source's factory for every pair the candidate paths, the gas price
 * (wrapped → output) and the USD prices (token → usd_tokens) need: V2 one pair per factory, V3 one
 * pool per configured fee tier.
 */
export async function discoverPools(
  lookup: PoolLookup,
  cache: DiscoveryCache,
  input: DiscoveryInput,
  block: BlockRef,
  signal: AbortSignal,
): Promise<{ refs: PoolRef[]; byPair: Map<string, PoolRef[]> }> {
  const sourceKey = input.sources.map((s) => `${s.name}:${s.factory}:${s.fee_bps}:${s.fee_tiers?.join('/')}`).join(',');
  const key = `${block.hash}|${sourceKey}|${input.excludePools?.join(',') ?? ''}|${input.v4Pools?.length ?? 0}|${input.sequences.map((s) => s.join('>')).join(',')}|${input.wrapped}|${input.usdTokens.join(',')}`;
  const hit = cache.get(key);
  if (hit) return hit;

  const { pairs, queries } = discoveryQueries(input);
  const refs = await lookup.discover(queries, block, signal);
  // Pools from the Initialize-log index that the direct lookups do not cover (other fee tiers).
  const found = new Set(refs.map((r) => r.address));
  for (const p of input.v4Pools ?? []) if (pairs.has(pairKey(p.token0, p.token1)) && !found.has(p.address)) refs.push(p);
  const excluded = new Set(input.excludePools ?? []);
  const kept = excluded.size === 0 ? refs : refs.filter((r) => !excluded.has(r.address.toLowerCase()));
  const byPair = new Map<string, PoolRef[]>();
  for (const r of kept) {
    const k = pairKey(r.token0, r.token1);
    byPair.set(k, [...(byPair.get(k) ?? []), r]);
  }
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  const result = { refs: kept, byPair };
  cache.set(key, result);
  return result;
}
