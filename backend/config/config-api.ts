import { z } from 'zod';
import type { FileProblem } from '../data/data-api.js';

/** Provider and model entries of config.yaml (spec 2.2). One schema; types derive from it. */
export const PROVIDER_TYPES = ['compat', 'native', 'responsemode'] as const;

const positiveInt = (field: string) =>
  z
    .number({ error: `${field} must be a positive integer` })
    .int(`${field} must be a positive integer`)
    .positive(`${field} must be a positive integer`);

/** What a model entry is for (DESIGN 13): only `chat` models appear in chat pickers. */
export const MODEL_KINDS = ['chat', 'embedding', 'rerank'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

export const ModelSchema = z
  .object({
    id: z.string({ error: 'id must be a string' }).trim().min(1, 'id must not be empty'),
    kind: z.enum(MODEL_KINDS, { error: `kind must be one of ${MODEL_KINDS.join(', ')}` }).default('chat'),
    name: z.string({ error: 'name must be a string' }).optional(),
    context_window: positiveInt('context_window').optional(),
    max_output_tokens: positiveInt('max_output_tokens').optional(),
    supports_thinking: z.boolean({ error: 'supports_thinking must be true or false' }).default(false),
    supports_tools: z.boolean({ error: 'supports_tools must be true or false' }).default(false),
    // Images and PDFs may be attached only for a model that reads them (DESIGN 8).
    supports_vision: z.boolean({ error: 'supports_vision must be true or false' }).default(false),
  })
  .loose();

export const ProviderSchema = z
  .object({
    id: z
      .string({ error: 'id must be a string' })
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'id must be 1-64 letters, digits, ".", "_" or "-"'),
    name: z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty'),
    type: z.enum(PROVIDER_TYPES, { error: `type must be one of ${PROVIDER_TYPES.join(', ')}` }),
    api_key: z.string({ error: 'api_key must be a string' }).optional(),
    base_url: z.string({ error: 'base_url must be a string' }).optional(),
    enabled: z.boolean({ error: 'enabled must be true or false' }).default(true),
    models: z.array(ModelSchema, { error: 'models must be a list' }).default([]),
  })
  .loose();

export const DefaultsSchema = z
  .object({
    provider: z.string().optional(),
    model: z.string().optional(),
  })
  .loose();

const httpUrl = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .refine((v) => !v.endsWith('/'), `${field} must not end with a trailing slash`)
    .refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, `${field} must be an absolute http(s) URL`);

/** A provider as the API accepts it: stricter than what a hand-edited file may hold. */
export const ProviderInputSchema = ProviderSchema.extend({
  id: ProviderSchema.shape.id.optional(),
  api_key: z
    .string({ error: 'api_key must be a string' })
    .trim()
    .refine((k) => /^[\x21-\x7e]*$/.test(k), 'api_key must not contain spaces or control characters')
    .nullable()
    .optional(),
  base_url: httpUrl('base_url').optional(),
}).superRefine((provider, ctx) => {
  const seen = new Set<string>();
  provider.models.forEach((model, i) => {
    if (seen.has(model.id))
      ctx.addIssue({
        code: 'custom',
        path: ['models', i, 'id'],
        message: `id must be unique within the provider (${model.id} appears twice)`,
      });
    seen.add(model.id);
  });
});

export const DefaultsInputSchema = z.object({
  provider: z.string({ error: 'provider must be a provider id' }).min(1, 'provider must be a provider id'),
  model: z.string({ error: 'model must be a model id' }).min(1, 'model must be a model id'),
});

/** Options of the provider check. */
export const ProviderTestSchema = z.object({
  import_models: z.boolean({ error: 'import_models must be true or false' }).default(false),
  timeout_ms: z
    .number({ error: 'timeout_ms must be an integer between 100 and 60000' })
    .int('timeout_ms must be an integer between 100 and 60000')
    .min(100, 'timeout_ms must be an integer between 100 and 60000')
    .max(60_000, 'timeout_ms must be an integer between 100 and 60000')
    .default(10_000),
});

export type ProviderInput = z.infer<typeof ProviderInputSchema>;
export type ModelEntry = z.infer<typeof ModelSchema>;
export type ProviderEntry = z.infer<typeof ProviderSchema>;
export type Defaults = z.infer<typeof DefaultsSchema>;

/** Keys the API manages in a provider or model entry; others in the file are left alone. */
export const PROVIDER_KEYS = new Set([
  'id',
  'name',
  'type',
  'api_key',
  'base_url',
  'enabled',
  'models',
  'kind',
  'context_window',
  'max_output_tokens',
  'supports_thinking',
  'supports_tools',
  'supports_vision',
]);

export interface ProviderCheckResult {
  ok: boolean;
  latency_ms: number;
  models: string[];
  error: { code: ProviderCheckError; message: string; status?: number } | null;
  imported?: string[];
}

export type ProviderCheckError =
  'unreachable' | 'dns' | 'tls' | 'unauthorized' | 'not_found' | 'timeout' | 'http_error' | 'invalid_response' | 'not_configured';

export type KeySource = 'file' | 'env' | 'none';

/** What the API shows of a provider: never the key itself. */
export interface MaskedProvider {
  id: string;
  name: string;
  type: ProviderEntry['type'];
  base_url: string | null;
  base_url_source: 'file' | 'env' | 'none';
  enabled: boolean;
  models: ModelEntry[];
  api_key_set: boolean;
  api_key_hint: string | null;
  api_key_source: KeySource;
  env_prefix: string;
}

export interface ProvidersResponse {
  providers: MaskedProvider[];
  defaults: { provider: string | null; model: string | null };
  effective_default: string | null;
  errors: FileProblem[];
}
