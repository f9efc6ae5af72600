import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import { DEFAULT_AGGREGATOR_TIMEOUT_MS, type ChainSettings } from '../swap-settings.js';

/** Decimal strings the aggregator sends for amounts; numbers are tolerated for USD values. */
const amount = z.union([
  z.string().regex(/^[0-9]+$/, 'must be a decimal integer string'),
  z.number().int().nonnegative().transform(String),
]);
const usd = z.union([z.string(), z.number()]).optional().nullable();

const RouteEntrySchema = z.object({
  pool: z.string(),
  tokenIn: z.string(),
  tokenOut: z.string(),
  swapAmount: amount,
  amountOut: amount,
  exchange: z.string(),
  poolType: z.string().optional(),
  extra: z.unknown().optional(),
});

const RouteSummarySchema = z.object({
  tokenIn: z.string(),
  amountIn: amount,
  amountInUsd: usd,
  tokenOut: z.string(),
  amountOut: amount,
  amountOutUsd: usd,
  gas: amount.optional(),
  gasPrice: amount.optional(),
  gasUsd: usd,
  route: z.array(z.array(RouteEntrySchema)),
});

const AnswerSchema = z.object({
  code: z.number(),
  message: z.string().optional(),
  data: z.object({ routeSummary: RouteSummarySchema, routerAddress: z.string().optional() }).optional(),
});

export type AggregatorRouteEntry = z.infer<typeof RouteEntrySchema>;
export type AggregatorSummary = z.infer<typeof RouteSummarySchema>;

export interface AggregatorQuery {
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  includedSources: string[];
  excludedSources: string[];
  gasPrice?: bigint;
}

/** Where we called, without credentials or query (safe for messages and logs). */
function safeEndpoint(u: URL): string {
  return `${u.origin}${u.pathname}`;
}

function fail(endpoint: string, why: string): ApiError {
  return new ApiError('upstream_error', `aggregator ${endpoint}: ${why}`);
}

/** One `GET {url}/{chain_name}/api/v1/routes` call; any failure is a 500 `upstream_error`. */
export async function fetchAggregatorRoute(settings: ChainSettings, q: AggregatorQuery, signal: AbortSignal): Promise<AggregatorSummary> {
  const agg = settings.aggregator;
  if (!agg?.url) throw new ApiError('config_missing', `swap.yaml: chains.${settings.chain}.aggregator.url is not set`);
  let base: URL;
  try {
    base = new URL(agg.url.replace(/\/+$/, '') + `/${encodeURIComponent(agg.chain_name ?? settings.chain)}/api/v1/routes`);
  } catch {
    throw new ApiError('config_missing', `swap.yaml: chains.${settings.chain}.aggregator.url is not a valid URL`);
  }
  const params: Record<string, string> = {
    tokenIn: q.tokenIn,
    tokenOut: q.tokenOut,
    amountIn: q.amountIn.toString(),
    includedSources: q.includedSources.join(','),
    gasInclude: 'true',
  };
  if (q.excludedSources.length > 0) params.excludedSources = q.excludedSources.join(',');
  if (q.gasPrice !== undefined) params.gasPrice = q.gasPrice.toString();
  for (const [k, v] of Object.entries(params)) base.searchParams.set(k, v);

  const endpoint = safeEndpoint(base);
  const timeoutMs = agg.timeout_ms ?? DEFAULT_AGGREGATOR_TIMEOUT_MS;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (agg.client_id) headers['x-client-id'] = agg.client_id;

  let status: number;
  let text: string;
  try {
    const res = await fetch(base, { headers, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
    status = res.status;
    text = await res.text();
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === 'TimeoutError') throw fail(endpoint, `no answer within ${timeoutMs} ms`);
    if (name === 'AbortError') throw fail(endpoint, 'the request was cancelled');
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw fail(endpoint, `could not be reached (${cause?.code ?? cause?.message ?? (err as Error).message})`);
  }

  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw fail(endpoint, status >= 400 ? `HTTP ${status} with a non-JSON body` : 'answered with malformed JSON');
  }
  const upstreamMessage = (body as { message?: unknown } | null)?.message;
  const said = typeof upstreamMessage === 'string' && upstreamMessage ? `: ${upstreamMessage.slice(0, 200)}` : '';
  if (status < 200 || status >= 300) throw fail(endpoint, `HTTP ${status}${said}`);
  const parsed = AnswerSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw fail(endpoint, `unexpected answer shape (${issue.path.join('.') || 'body'}: ${issue.message})`);
  }
  if (parsed.data.code !== 0) throw fail(endpoint, `error code ${parsed.data.code}${said}`);
  if (!parsed.data.data) throw fail(endpoint, 'unexpected answer shape (data.routeSummary is missing)');
  return parsed.data.data.routeSummary;
}
