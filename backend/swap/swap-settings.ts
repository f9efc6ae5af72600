import { parseDocument } from 'yaml';
import { z } from 'zod';
import { readIfExists } from '../data/atomic-write.js';
import { ApiError } from '../http/errors.js';
import type { ChainName } from './route-request.js';
import { SOURCE_NAMES, type SourceName } from './swap-api.js';

const hexAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address (40 hex digits)');

/**
 * swap.yaml (DESIGN 5). Every key is optional here: what a request needs is checked when it is
 * used, so a missing key answers 500 `config_missing` naming it instead of breaking the whole file.
 */
const SourceSettingsSchema = z.object({
  kind: z.enum(['v2', 'v3']).optional(),
  factory: hexAddress.optional(),
  adapter: hexAddress.optional(),
  /** V2 pool fee in basis points (25 = 0.25 %). */
  fee_bps: z.number().int().min(0).max(10_000).optional(),
  /** V2 only: the adapter takes the fee as `abi.encode(uint256 feeBps)` (dynamic-fee adapter). */
  dynamic_fee: z.boolean().optional(),
  fee_tiers: z.array(z.number().int().min(0).max(1_000_000)).optional(),
  /** Aggregator exchange ids that map to this source. */
  exchanges: z.array(z.string().min(1)).optional(),
  /** swapav3 only (DESIGN 5): the V4 pools of one PoolManager, found from its Initialize logs. */
  v4: z
    .object({
      pool_manager: hexAddress.optional(),
      adapter: hexAddress.optional(),
      from_block: z.number().int().min(0).optional(),
      /** Extra LP fees (pips) whose hookless pools are looked up by PoolId (spacing 2 × fee / 100). */
      fee_tiers: z.array(z.number().int().min(1).max(1_000_000)).optional(),
      /** Aggregator exchange ids of this source's V4 pools (their hops carry a PoolId). */
      exchanges: z.array(z.string().min(1)).optional(),
      /** Blocks per eth_getLogs request while indexing (nodes cap the range; default 5000). */
      log_range: z.number().int().positive().max(1_000_000).optional(),
    })
    .optional(),
});

const gasNumber = z.number().int().min(-1_000_000).max(10_000_000);

const ChainSettingsSchema = z.object({
  liquidity: z.enum(['onchain', 'aggregator']).optional(),
  rpc_url: z.string().optional(),
  /** WebSocket endpoint of the same node: new heads arrive by subscription instead of polling. */
  ws_url: z.string().optional(),
  /** How the node is used: calls per HTTP batch (halved when refused) and requests in flight. */
  rpc: z
    .object({
      max_batch: z.number().int().min(1).max(10_000).optional(),
      max_in_flight: z.number().int().min(1).max(64).optional(),
      timeout_ms: z.number().int().positive().max(120_000).optional(),
      /** Head polling interval when ws_url is not set. */
      poll_ms: z.number().int().min(50).max(60_000).optional(),
    })
    .strict()
    .optional(),
  aggregator: z
    .object({
      url: z.string().optional(),
      chain_name: z.string().optional(),
      client_id: z.string().optional(),
      timeout_ms: z.number().int().positive().max(120_000).optional(),
    })
    .optional(),
  router: hexAddress.optional(),
  token_approve: hexAddress.optional(),
  wrapped_native: hexAddress.optional(),
  connectors: z.array(hexAddress).optional(),
  usd_tokens: z.array(hexAddress).optional(),
  sources: z.partialRecord(z.enum(SOURCE_NAMES), SourceSettingsSchema).optional(),
  /** Simulate each route's calldata with eth_estimateGas and state overrides (default true). */
  gas_simulation: z.boolean().optional(),
  /** Per-hop gas constants of the fallback model (backend/swap/onchain/gas-model.ts). */
  gas_model: z
    .object({
      base: gasNumber.optional(),
      per_path: gasNumber.optional(),
      v2_hop: gasNumber.optional(),
      v3_hop: gasNumber.optional(),
      v3_tick_cross: gasNumber.optional(),
      v4_hop: gasNumber.optional(),
      v4_tick_cross: gasNumber.optional(),
      v4_native_out: gasNumber.optional(),
      native_in: gasNumber.optional(),
      native_out: gasNumber.optional(),
      recipient: gasNumber.optional(),
      wrap: gasNumber.optional(),
      unwrap: gasNumber.optional(),
    })
    .strict()
    .optional(),
});

// Chains are validated one at a time, so a typo under one chain does not break the other.
const SwapFileSchema = z.object({
  chains: z.partialRecord(z.enum(['bsc', 'ethereum']), z.unknown()).optional(),
});

export type SourceSettings = z.infer<typeof SourceSettingsSchema>;
export type RawChainSettings = z.infer<typeof ChainSettingsSchema>;

/** One chain's settings with the environment overrides applied. */
export interface ChainSettings extends RawChainSettings {
  chain: ChainName;
}

export const DEFAULT_AGGREGATOR_TIMEOUT_MS = 10_000;

const missing = (key: string, why = 'is not set') => new ApiError('config_missing', `swap.yaml: chains.${key} ${why}`);

/** The last parse of each swap.yaml, reused while its text is unchanged (parsing dominated warm builds). */
const parseCache = new Map<string, { text: string; value: unknown }>();

function parseSwapYaml(file: string, text: string): unknown {
  const hit = parseCache.get(file);
  if (hit?.text === text) return hit.value;
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const line = e.linePos?.[0]?.line;
    throw new ApiError('config_missing', `swap.yaml does not parse${line ? ` (line ${line})` : ''}: ${e.message.split('\n')[0]}`);
  }
  const value: unknown = doc.toJS() ?? {};
  parseCache.set(file, { text, value });
  return value;
}

/** Reads swap.yaml on every request, so edits apply without a restart. */
export async function loadChainSettings(file: string, chain: ChainName, env: NodeJS.ProcessEnv): Promise<ChainSettings> {
  const text = await readIfExists(file);
  if (text === undefined) throw new ApiError('config_missing', `swap.yaml is missing from the data directory; chains.${chain} is not set`);
  const top = SwapFileSchema.safeParse(parseSwapYaml(file, text));
  if (!top.success)
    throw new ApiError('config_missing', `swap.yaml: ${top.error.issues[0].path.join('.') || 'top level'} ${top.error.issues[0].message}`);
  const rawChain = top.data.chains?.[chain];
  if (rawChain === undefined || rawChain === null) throw missing(chain);
  const parsed = ChainSettingsSchema.safeParse(rawChain);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError('config_missing', `swap.yaml: ${['chains', chain, ...issue.path].join('.')} ${issue.message}`);
  }
  const raw = parsed.data;
  const envUrl = env[`${chain.toUpperCase()}_RPC_URL`]?.trim();
  return { ...raw, chain, rpc_url: envUrl || raw.rpc_url };
}

/** A setting the request needs; 500 `config_missing` naming it when absent. */
export function requireSetting<K extends 'router' | 'token_approve' | 'wrapped_native' | 'rpc_url'>(
  s: ChainSettings,
  key: K,
): NonNullable<ChainSettings[K]> {
  const value = s[key];
  if (value === undefined || value === '') throw missing(`${s.chain}.${key}`);
  return value as NonNullable<ChainSettings[K]>;
}

/** A configured source with its kind and adapter (both needed to encode any hop through it). */
export interface ResolvedSource extends SourceSettings {
  name: SourceName;
  kind: 'v2' | 'v3';
  adapter: string;
}

export function requireSource(s: ChainSettings, name: SourceName): ResolvedSource {
  const src = s.sources?.[name];
  if (!src) throw missing(`${s.chain}.sources.${name}`);
  if (!src.kind) throw missing(`${s.chain}.sources.${name}.kind`);
  if (!src.adapter) throw missing(`${s.chain}.sources.${name}.adapter`);
  if (src.kind === 'v2' && src.dynamic_fee && src.fee_bps === undefined) {
    throw missing(`${s.chain}.sources.${name}.fee_bps`, 'is not set (needed by dynamic_fee)');
  }
  return { ...src, name, kind: src.kind, adapter: src.adapter };
}

/**
 * The sources a request may use: the ones it names (each must be configured), or, when it names
 * none, every configured source (at least one).
 */
export function enabledSources(s: ChainSettings, requested: SourceName[] | undefined): ResolvedSource[] {
  if (requested) return requested.map((n) => requireSource(s, n));
  const names = SOURCE_NAMES.filter((n) => s.sources?.[n] !== undefined);
  if (names.length === 0) throw missing(`${s.chain}.sources`);
  return names.map((n) => requireSource(s, n));
}
