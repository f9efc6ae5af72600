// The web keys of config.yaml (DESIGN 14): read from the config store's snapshot, keys masked for
// clients, `<ID>_API_KEY` overriding a provider's key.
import type { Document } from 'yaml';
import { maskKey } from '../config/env-overrides.js';
import { envName, type ResolvedSearchProvider } from './search-providers.js';
import { WebConfigSchema, type MaskedSearchProvider, type SearchProviderEntry, type WebConfig, type WebConfigResponse } from './web-api.js';

export const EMPTY_WEB_CONFIG: WebConfig = WebConfigSchema.parse({});

/** The web part of a parsed config.yaml; invalid web keys fall back to none (with the problem said). */
export function webConfigOf(document: Document | null): { config: WebConfig; problem?: string } {
  const root = (document?.toJS() ?? {}) as Record<string, unknown>;
  const parsed = WebConfigSchema.safeParse({ web_search: root.web_search ?? undefined, web_fetch: root.web_fetch ?? undefined });
  if (parsed.success) return { config: parsed.data };
  const issue = parsed.error.issues[0];
  return { config: EMPTY_WEB_CONFIG, problem: `${issue?.path.join('.')}: ${issue?.message}` };
}

export function resolveProvider(
  p: SearchProviderEntry,
  env: NodeJS.ProcessEnv,
): ResolvedSearchProvider & { source: 'file' | 'env' | 'none' } {
  const fromEnv = env[envName(p.id)]?.trim() || undefined;
  const fromFile = p.api_key?.trim() || undefined;
  return {
    id: p.id,
    type: p.type,
    apiKey: fromEnv ?? fromFile,
    baseUrl: p.base_url,
    source: fromEnv ? 'env' : fromFile ? 'file' : 'none',
  };
}

export function maskedWebConfig(config: WebConfig, env: NodeJS.ProcessEnv): WebConfigResponse {
  return {
    web_search: {
      providers: config.web_search.providers.map((p): MaskedSearchProvider => {
        const r = resolveProvider(p, env);
        return {
          id: p.id,
          type: p.type,
          ...(p.base_url ? { base_url: p.base_url } : {}),
          api_key_set: !!r.apiKey,
          api_key_hint: r.apiKey ? maskKey(r.apiKey) : null,
          api_key_source: r.source,
        };
      }),
      approval: config.web_search.approval,
    },
    web_fetch: { allow_hosts: config.web_fetch.allow_hosts },
  };
}

/**
 * What `PUT /api/config/web` writes: an entry sent without `api_key` (or with its masked hint)
 * keeps the stored key; an empty string removes it.
 */
export function mergeForWrite(input: WebConfig, stored: WebConfig): WebConfig {
  const providers = input.web_search.providers.map((p) => {
    const before = stored.web_search.providers.find((s) => s.id === p.id);
    const keep = p.api_key === undefined || (before?.api_key && p.api_key === maskKey(before.api_key.trim()));
    const entry: SearchProviderEntry = { id: p.id, type: p.type, ...(p.base_url ? { base_url: p.base_url } : {}) };
    const key = keep ? before?.api_key : p.api_key;
    if (key) entry.api_key = key;
    return entry;
  });
  return { web_search: { providers, approval: input.web_search.approval }, web_fetch: input.web_fetch };
}
