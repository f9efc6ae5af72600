import { z } from 'zod';

/** Provider and model entries of config.yaml (spec 2.2). One schema; types derive from it. */
export const PROVIDER_TYPES = ['compat', 'native', 'responsemode'] as const;

const positiveInt = (field: string) =>
  z.number({ error: `${field} must be a positive integer` }).int(`${field} must be a positive integer`).positive(`${field} must be a positive integer`);

export const ModelSchema = z.object({
  id: z.string({ error: 'id must be a string' }).trim().min(1, 'id must not be empty'),
  name: z.string({ error: 'name must be a string' }).optional(),
  context_window: positiveInt('context_window').optional(),
  max_output_tokens: positiveInt('max_output_tokens').optional(),
  supports_thinking: z.boolean({ error: 'supports_thinking must be true or false' }).default(false),
  supports_tools: z.boolean({ error: 'supports_tools must be true or false' }).default(false),
}).loose();

export const ProviderSchema = z.object({
  id: z.string({ error: 'id must be a string' }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'id must be 1-64 letters, digits, ".", "_" or "-"'),
  name: z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty'),
  type: z.enum(PROVIDER_TYPES, { error: `type must be one of ${PROVIDER_TYPES.join(', ')}` }),
  api_key: z.string({ error: 'api_key must be a string' }).optional(),
  base_url: z.string({ error: 'base_url must be a string' }).optional(),
  enabled: z.boolean({ error: 'enabled must be true or false' }).default(true),
  models: z.array(ModelSchema, { error: 'models must be a list' }).default([]),
}).loose();

export const DefaultsSchema = z.object({
  provider: z.string().optional(),
  model: z.string().optional(),
}).loose();

export type ModelEntry = z.infer<typeof ModelSchema>;
export type ProviderEntry = z.infer<typeof ProviderSchema>;
export type Defaults = z.infer<typeof DefaultsSchema>;

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

export interface ConfigProblem {
  file: string;
  line: number | null;
  message: string;
}

export interface ProvidersResponse {
  providers: MaskedProvider[];
  defaults: { provider: string | null; model: string | null };
  effective_default: string | null;
  errors: ConfigProblem[];
}
