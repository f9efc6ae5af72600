import { z } from 'zod';

// Request bodies of the knowledge routes (DESIGN 13); messages start with the field name, the
// validation helper puts the full path in front.

const modelRef = (field: string) =>
  z
    .object(
      { model: z.string({ error: 'model must be a string' }).regex(/^[^:]+:.+$/, 'model must be <providerId>:<modelId>') },
      { error: `${field} must be an object {model} or null` },
    )
    .nullable();

const label = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(200, `${field} must be at most 200 characters`);
const name = label('name');
const description = z.string({ error: 'description must be a string' }).max(2000, 'description must be at most 2000 characters');

export const ChunkingSchema = z.object(
  {
    tokens: z
      .number({ error: 'tokens must be an integer' })
      .int('tokens must be an integer')
      .min(64, 'tokens must be at least 64')
      .max(8192, 'tokens must be at most 8192'),
    overlap: z
      .number({ error: 'overlap must be an integer' })
      .int('overlap must be an integer')
      .min(0, 'overlap must be at least 0')
      .max(1024, 'overlap must be at most 1024'),
  },
  { error: 'chunking must be an object {tokens, overlap}' },
);

export const CreateKbSchema = z.strictObject({
  name,
  description: description.optional(),
  embedding: modelRef('embedding').optional(),
  rerank: modelRef('rerank').optional(),
  chunking: ChunkingSchema.refine((c) => c.overlap < c.tokens / 2, 'chunking.overlap must be less than half of chunking.tokens').optional(),
});

export const PatchKbSchema = z.strictObject({
  name: name.optional(),
  description: description.optional(),
  embedding: modelRef('embedding').optional(),
  rerank: modelRef('rerank').optional(),
});

const globs = (field: string) =>
  z
    .array(
      z
        .string({ error: `${field} entries must be strings` })
        .min(1, `${field} entries must not be empty`)
        .max(500),
      { error: `${field} must be a list of glob patterns` },
    )
    .max(100, `${field} must hold at most 100 patterns`);

export const AddSourceSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      kind: z.literal('folder'),
      path: z.string({ error: 'path must be a string' }).min(1, 'path must name a folder'),
      include: globs('include').optional(),
      exclude: globs('exclude').optional(),
    }),
    z.strictObject({
      kind: z.literal('url'),
      url: z.string({ error: 'url must be a string' }).min(1, 'url must not be empty').max(4096, 'url must be at most 4096 characters'),
    }),
    z.strictObject({
      kind: z.literal('note'),
      title: label('title'),
      text: z
        .string({ error: 'text must be a string' })
        .min(1, 'text must not be empty')
        .max(10 * 1024 * 1024, 'text must be at most 10 MiB'),
    }),
  ],
  { error: 'kind must be one of folder, url, note (files are sent as the raw body with X-Filename)' },
);

export const SearchSchema = z.strictObject({
  query: z.string({ error: 'query must be a string' }).max(10_000, 'query must be at most 10000 characters'),
  top_k: z
    .number({ error: 'top_k must be an integer' })
    .int('top_k must be an integer')
    .min(1, 'top_k must be at least 1')
    .max(100, 'top_k must be at most 100')
    .default(8),
  mode: z.enum(['hybrid', 'lexical', 'vector'], { error: 'mode must be one of hybrid, lexical, vector' }).default('hybrid'),
});
