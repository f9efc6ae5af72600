import { checksum } from '../checksum.js';
import { isNative } from '../route-request.js';
import { routeProblem, type Hop, type Route, type RoutePath } from '../route-model.js';
import type { ResolvedSource } from '../swap-settings.js';
import type { AggregatorRouteEntry, AggregatorSummary } from './aggregator-client.js';

/** Pure mapping of the aggregator's `route[][]` into the route model. */
export type MappingResult =
  { ok: true; route: Route } | { ok: false; unsupported: string[] } | { ok: false; empty: true } | { ok: false; malformed: string };

export interface MappingContext {
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  wrapped: string;
  /** Exchange id -> source, for the sources enabled for this request only. */
  byExchange: ReadonlyMap<string, ResolvedSource>;
  /** Exchange ids (lower-case) whose hops are V4 pools (`sources.<name>.v4.exchanges`). */
  v4Exchanges?: ReadonlySet<string>;
}

/** Exchange id -> source for the enabled sources (exchange ids compared case-insensitively). */
export function exchangeMap(sources: ResolvedSource[]): Map<string, ResolvedSource> {
  const map = new Map<string, ResolvedSource>();
  for (const s of sources) for (const ex of [...(s.exchanges ?? []), ...(s.v4?.exchanges ?? [])]) map.set(ex.toLowerCase(), s);
  return map;
}

/** The V4 exchange ids of the enabled sources (lower-case). */
export function v4ExchangeSet(sources: ResolvedSource[]): Set<string> {
  return new Set(sources.flatMap((s) => (s.v4?.exchanges ?? []).map((x) => x.toLowerCase())));
}

const ZERO = '0x0000000000000000000000000000000000000000';

/**
 * A V4 hop's key from the aggregator's `extra` (fee, tickSpacing, hooks). Undefined when the router's
 * V4 adapter cannot swap the pool (hooks, dynamic fee) or the answer does not say enough.
 */
function v4Key(e: AggregatorRouteEntry): { fee: number; tickSpacing: number } | undefined {
  const extra = (e.extra && typeof e.extra === 'object' ? e.extra : {}) as Record<string, unknown>;
  const fee = Number(extra.fee ?? extra.swapFee);
  const tickSpacing = Number(extra.tickSpacing);
  const hooks = typeof extra.hooks === 'string' ? extra.hooks : ZERO;
  if (!/^0x[0-9a-fA-F]{64}$/.test(e.pool)) return undefined;
  if (!Number.isInteger(fee) || fee < 0 || fee >= 0x800000 || !Number.isInteger(tickSpacing) || tickSpacing < 1) return undefined;
  if (!/^0x0{40}$/i.test(hooks)) return undefined;
  return { fee, tickSpacing };
}

/** A V4 hop: its exchange is listed under `v4.exchanges`, or its pool is a PoolId (32 bytes, no address). */
const isV4 = (e: AggregatorRouteEntry, ctx: MappingContext) =>
  (ctx.v4Exchanges?.has(e.exchange.toLowerCase()) ?? false) || /^0x[0-9a-fA-F]{64}$/.test(e.pool);

function v3Fee(extra: unknown): number | null {
  if (!extra || typeof extra !== 'object') return null;
  for (const key of ['fee', 'swapFee', 'feeTier']) {
    const v = Number((extra as Record<string, unknown>)[key]);
    if (Number.isInteger(v) && v >= 0 && v < 1_000_000) return v;
  }
  return null;
}

class Malformed extends Error {}

function address(value: string, what: string): string {
  try {
    return checksum(value);
  } catch {
    throw new Malformed(`${what} ${JSON.stringify(value).slice(0, 60)} is not an address`);
  }
}

function mapHop(e: AggregatorRouteEntry, source: ResolvedSource, wrapped: string, where: string, v4: boolean): Hop {
  const token = (t: string, what: string) => (isNative(t) || t.toLowerCase() === ZERO ? wrapped : address(t, `${where} ${what}`));
  if (v4) {
    const key = v4Key(e)!;
    const currency = (t: string, what: string) => (isNative(t) || t.toLowerCase() === ZERO ? ZERO : address(t, `${where} ${what}`));
    return {
      source: source.name,
      kind: 'v4',
      pool: e.pool.toLowerCase(),
      tokenIn: token(e.tokenIn, 'tokenIn'),
      tokenOut: token(e.tokenOut, 'tokenOut'),
      amountIn: BigInt(e.swapAmount),
      amountOut: BigInt(e.amountOut),
      fee: key.fee,
      v4: { currencyIn: currency(e.tokenIn, 'tokenIn'), currencyOut: currency(e.tokenOut, 'tokenOut'), ...key },
    };
  }
  return {
    source: source.name,
    kind: source.kind,
    pool: address(e.pool, `${where} pool`),
    tokenIn: token(e.tokenIn, 'tokenIn'),
    tokenOut: token(e.tokenOut, 'tokenOut'),
    amountIn: BigInt(e.swapAmount),
    amountOut: BigInt(e.amountOut),
    fee: source.kind === 'v2' ? (source.fee_bps === undefined ? null : source.fee_bps * 100) : v3Fee(e.extra),
  };
}

export function mapAggregatorRoute(summary: AggregatorSummary, ctx: MappingContext): MappingResult {
  const unsupported = new Set<string>();
  for (const path of summary.route) {
    for (const e of path) {
      // A V4 hop the router's adapter cannot swap (hooks, dynamic fee, no key) is as unusable as an unknown exchange.
      if (!ctx.byExchange.has(e.exchange.toLowerCase()) || (isV4(e, ctx) && !v4Key(e))) unsupported.add(e.exchange);
    }
  }
  if (unsupported.size > 0) return { ok: false, unsupported: [...unsupported] };
  if (summary.route.length === 0 || summary.route.every((p) => p.length === 0)) return { ok: false, empty: true };
  if (BigInt(summary.amountIn) !== ctx.amountIn) {
    return { ok: false, malformed: `it routed ${summary.amountIn} instead of the requested ${ctx.amountIn}` };
  }
  try {
    const paths: RoutePath[] = summary.route.map((entries, i) => {
      if (entries.length === 0) throw new Malformed(`path ${i} is empty`);
      const hops = entries.map((e, j) =>
        mapHop(e, ctx.byExchange.get(e.exchange.toLowerCase())!, ctx.wrapped, `path ${i} hop ${j}`, isV4(e, ctx)),
      );
      return { amountIn: hops[0].amountIn, amountOut: hops[hops.length - 1].amountOut, hops };
    });
    // The aggregator may leave rounding dust unrouted; the largest path takes it so every wei is spent.
    const spent = paths.reduce((a, p) => a + p.amountIn, 0n);
    if (spent > ctx.amountIn) throw new Malformed(`its paths spend ${spent}, more than the input ${ctx.amountIn}`);
    if (spent < ctx.amountIn) {
      const largest = paths.reduce((a, p) => (p.amountIn > a.amountIn ? p : a));
      largest.amountIn += ctx.amountIn - spent;
      largest.hops[0].amountIn = largest.amountIn;
    }
    const route: Route = {
      tokenIn: ctx.tokenIn,
      tokenOut: ctx.tokenOut,
      amountIn: ctx.amountIn,
      amountOut: paths.reduce((a, p) => a + p.amountOut, 0n),
      paths,
    };
    const problem = routeProblem(route, ctx.wrapped);
    return problem ? { ok: false, malformed: problem } : { ok: true, route };
  } catch (err) {
    if (err instanceof Malformed) return { ok: false, malformed: err.message };
    throw err;
  }
}
