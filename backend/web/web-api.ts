import { z } from 'zod';

/** DESIGN 14: the web keys of config.yaml and `GET/PUT /api/config/web`. Types derive from the schemas. */
export const SEARCH_PROVIDER_TYPES = ['tavily', 'brave', 'searxng', 'exa', 'jina'] as const;
export type SearchProviderType = (typeof SEARCH_PROVIDER_TYPES)[number];
export const WEB_APPROVALS = ['auto', 'ask'] as const;

/** Where each provider type answers when `base_url` is not set. */
export const DEFAULT_BASE_URLS: Record<SearchProviderType, string | null> = {
  tavily: 'https://api.tavily.com',
  brave: 'https://api.search.brave.com',
  searxng: null,
  exa: 'https://api.exa.ai',
  jina: 'https://s.jina.ai',
};

const httpUrl = z.string({ error: 'base_url must be a string' }).refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'base_url must be an absolute http(s) URL');

export const SearchProviderSchema = z
  .object({
    id: z
      .string({ error: 'id must be a string' })
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'id must be 1-64 letters, digits, ".", "_" or "-"'),
    type: z.enum(SEARCH_PROVIDER_TYPES, { error: `type must be one of ${SEARCH_PROVIDER_TYPES.join(', ')}` }),
    api_key: z.string({ error: 'api_key must be a string' }).optional(),
    base_url: httpUrl.optional(),
  })
  .refine((p) => p.type !== 'searxng' || !!p.base_url, { message: 'base_url is required for a searxng provider', path: ['base_url'] });
export type SearchProviderEntry = z.infer<typeof SearchProviderSchema>;

/** `host:port`, e.g. `wiki.lan:443`. */
const hostPort = z
  .string({ error: 'allow_hosts entries must be strings' })
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'allow_hosts entries must have the form host:port');

const uniqueIds = (providers: { id: string }[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  providers.forEach((p, i) => {
    if (seen.has(p.id)) ctx.addIssue({ code: 'custom', message: `duplicate provider id ${p.id}`, path: [i, 'id'] });
    seen.add(p.id);
  });
};

/** What config.yaml holds (and `PUT /api/config/web` takes: an entry without `api_key` keeps its key). */
export const WebConfigSchema = z
  .object({
    web_search: z
      .object(
        {
          providers: z.array(SearchProviderSchema, { error: 'web_search.providers must be a list' }).superRefine(uniqueIds).default([]),
          approval: z.enum(WEB_APPROVALS, { error: 'web_search.approval must be auto or ask' }).default('auto'),
        },
        { error: 'web_search must be a mapping' },
      )
      .prefault({}),
    web_fetch: z
      .object(
        { allow_hosts: z.array(hostPort, { error: 'web_fetch.allow_hosts must be a list' }).default([]) },
        {
          error: 'web_fetch must be a mapping',
        },
      )
      .prefault({}),
  })
  .strict();
export type WebConfig = z.infer<typeof WebConfigSchema>;

export interface MaskedSearchProvider {
  id: string;
  type: SearchProviderType;
  base_url?: string;
  api_key_set: boolean;
  api_key_hint: string | null;
  api_key_source: 'file' | 'env' | 'none';
}

/** `GET /api/config/web`. */
export interface WebConfigResponse {
  web_search: { providers: MaskedSearchProvider[]; approval: 'auto' | 'ask' };
  web_fetch: { allow_hosts: string[] };
}

/** `POST /api/config/web/test`: each provider tried with one query. */
export interface WebTestResponse {
  results: { id: string; ok: boolean; count: number; message: string }[];
}
