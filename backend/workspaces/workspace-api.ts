import { z } from 'zod';
import { isSafeName } from '../data/safe-name.js';

/** workspaces.json and workspace.json (DESIGN 3). One schema per shape; types derive from them. */
const name = z
  .string({ error: 'name must be a string' })
  .trim()
  .min(1, 'name must not be empty')
  .max(100, 'name must be at most 100 characters');
const profileId = z
  .string({ error: 'profile_id must be a profile id or null' })
  .min(1, 'profile_id must be a profile id or null')
  // Profile ids are file names under profiles/: "../config" would bind config.yaml.
  .refine(isSafeName, 'profile_id must be 1-64 letters, digits, ".", "_" or "-" without ".." or path separators')
  .nullable();

export const WorkspaceEntrySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    profile_id: z.string().nullable().default(null),
    created_at: z.string(),
  })
  .loose();

export const WorkspaceIndexSchema = z
  .object(
    {
      workspaces: z.array(WorkspaceEntrySchema, { error: 'workspaces must be a list' }),
    },
    { error: 'workspaces.json must be an object with a workspaces list' },
  )
  .loose();

/** DESIGN 7: appended to the system prompt of every turn in the workspace. */
export const MAX_INSTRUCTIONS_BYTES = 32 * 1024;
const instructions = z
  .string({ error: 'instructions must be a string' })
  .refine(
    (s) => new TextEncoder().encode(s).length <= MAX_INSTRUCTIONS_BYTES,
    'instructions must be at most 32 KiB (32768 bytes of UTF-8)',
  );

/** DESIGN 13: knowledge bases every turn of the workspace may draw on (the routes check that each exists). */
export const MAX_KNOWLEDGE_BASES = 20;
export const knowledgeBaseIds = z
  .array(
    z
      .string({ error: 'knowledge_bases must be a list of knowledge base ids' })
      .trim()
      .min(1, 'a knowledge base id must not be empty')
      .max(100),
    { error: 'knowledge_bases must be a list of knowledge base ids' },
  )
  .max(MAX_KNOWLEDGE_BASES, `knowledge_bases may list at most ${MAX_KNOWLEDGE_BASES} ids`);

export const WorkspaceCreateSchema = z.object({
  name,
  profile_id: profileId.optional(),
  instructions: instructions.optional(),
  knowledge_bases: knowledgeBaseIds.optional(),
});

export const WorkspaceUpdateSchema = z
  .object({
    name: name.optional(),
    profile_id: profileId.optional(),
    instructions: instructions.optional(),
    knowledge_bases: knowledgeBaseIds.optional(),
  })
  .refine((v) => v.name !== undefined || v.profile_id !== undefined || v.instructions !== undefined || v.knowledge_bases !== undefined, {
    message: 'send name, profile_id, instructions and/or knowledge_bases',
    path: ['name'],
  });

export type WorkspaceEntry = z.infer<typeof WorkspaceEntrySchema>;
export type WorkspaceIndex = z.infer<typeof WorkspaceIndexSchema>;
export type WorkspaceCreate = z.infer<typeof WorkspaceCreateSchema>;
export type WorkspaceUpdate = z.infer<typeof WorkspaceUpdateSchema>;
