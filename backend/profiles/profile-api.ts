import { z } from 'zod';
import type { FileProblem } from '../data/data-api.js';

/** Profile files (spec 2.3) and their documented defaults. One schema; the type derives from it. */
export const LANGUAGES = ['zh', 'en', 'system'] as const;
/** auto: the provider's own search tool where the protocol has one, else the built-in tools. */
export const WEB_SEARCH_MODES = ['auto', 'native', 'tools'] as const;

const bool = (field: string) => z.boolean({ error: `${field} must be true or false` });
const positiveInt = (field: string) =>
  z
    .number({ error: `${field} must be a positive integer` })
    .int(`${field} must be a positive integer`)
    .positive(`${field} must be a positive integer`);
const mapping = (field: string) => ({ error: `${field} must be a mapping` });
/** Node's timers hold at most 2^31-1 ms (about 24.8 days); one day is far beyond any turn. */
export const MAX_TIMEOUT_SECONDS = 86_400;

export const ProfileSchema = z
  .object(
    {
      model: z
        .string({ error: 'model must be a string <providerId>:<modelId>' })
        .regex(/^[^:\s]+:\S+$/, 'model must have the form <providerId>:<modelId>')
        .optional(),
      // DESIGN 7: replaces the built-in base prompt when set.
      system_prompt: z
        .string({ error: 'system_prompt must be a string' })
        .refine((v) => new TextEncoder().encode(v).length <= 32 * 1024, 'system_prompt must be at most 32 KiB (32768 bytes of UTF-8)')
        .default(''),
      language: z.enum(LANGUAGES, { error: `language must be one of ${LANGUAGES.join(', ')}` }).default('system'),
      timeout_seconds: positiveInt('timeout_seconds')
        .max(MAX_TIMEOUT_SECONDS, `timeout_seconds must be between 1 and ${MAX_TIMEOUT_SECONDS}`)
        .default(600),
      thinking: z
        .object(
          {
            enabled: bool('enabled').default(false),
            budget: positiveInt('budget').default(8192),
          },
          mapping('thinking'),
        )
        .loose()
        .prefault({}),
      cache: z
        .object(
          {
            enabled: bool('enabled').default(true),
            cache_threshold: positiveInt('cache_threshold').default(3),
          },
          mapping('cache'),
        )
        .loose()
        .prefault({}),
      compression: z
        .object(
          {
            enabled: bool('enabled').default(true),
            threshold_percent: z
              .number({ error: 'threshold_percent must be an integer between 50 and 95' })
              .int('threshold_percent must be an integer between 50 and 95')
              .min(50, 'threshold_percent must be between 50 and 95')
              .max(95, 'threshold_percent must be between 50 and 95')
              .default(80),
            cooldown_seconds: z
              .number({ error: 'cooldown_seconds must be a non-negative integer' })
              .int('cooldown_seconds must be a non-negative integer')
              .min(0, 'cooldown_seconds must be a non-negative integer')
              .default(60),
          },
          mapping('compression'),
        )
        .loose()
        .prefault({}),
      tools: z
        .object(
          {
            max_steps: z
              .number({ error: 'max_steps must be an integer between 1 and 100' })
              .int('max_steps must be an integer between 1 and 100')
              .min(1, 'max_steps must be between 1 and 100')
              .max(100, 'max_steps must be between 1 and 100')
              .default(20),
          },
          mapping('tools'),
        )
        .loose()
        .prefault({}),
      // DESIGN 14: web search for every session of the profile (a session may override `enabled`).
      web_search: z
        .object(
          {
            enabled: bool('enabled').default(false),
            mode: z.enum(WEB_SEARCH_MODES, { error: `mode must be one of ${WEB_SEARCH_MODES.join(', ')}` }).default('auto'),
            max_uses: z
              .number({ error: 'max_uses must be an integer between 1 and 20' })
              .int('max_uses must be an integer between 1 and 20')
              .min(1, 'max_uses must be between 1 and 20')
              .max(20, 'max_uses must be between 1 and 20')
              .default(5),
          },
          mapping('web_search'),
        )
        .loose()
        .prefault({}),
    },
    { error: 'a profile must be a mapping' },
  )
  .loose();

/** A profile body from the API: the same keys; `id` only on POST. */
export const ProfileInputSchema = ProfileSchema.extend({
  id: z.string({ error: 'id must be a string' }).optional(),
});

export type Profile = z.infer<typeof ProfileSchema>;

/** Keys the API manages; absent from a replacing body → removed. Unknown keys stay. */
export const PROFILE_KEYS = new Set([
  'model',
  'system_prompt',
  'language',
  'timeout_seconds',
  'thinking',
  'cache',
  'compression',
  'enabled',
  'budget',
  'cache_threshold',
  'threshold_percent',
  'cooldown_seconds',
  'tools',
  'max_steps',
  'web_search',
  'mode',
  'max_uses',
]);

/** A profile as the API shows it: defaults filled in, model resolved to the effective default. */
export type ProfileView = Omit<Profile, 'model'> & {
  id: string;
  model: string | null;
  model_is_default: boolean;
  errors: FileProblem[];
};
