import { z } from 'zod';

/** skills/<name>/SKILL.md: Markdown with YAML front matter holding at least name and description. */
export const SKILL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const SkillNameSchema = z.string().superRefine((name, ctx) => {
  if (SKILL_NAME.test(name)) return;
  const why = name.includes('\0')
    ? 'contains NUL'
    : name.includes('..')
      ? 'contains ".."'
      : /[/\\]/.test(name)
        ? 'contains a path separator'
        : 'is not 1-64 letters, digits, "-" or "_"';
  ctx.addIssue({ code: 'custom', message: `name ${why}; skill names are 1-64 letters, digits, "-" or "_"` });
});

export const FrontMatterSchema = z
  .object(
    {
      name: z.string({ error: 'name is required in the front matter' }).trim().min(1, 'name is required in the front matter'),
      description: z
        .string({ error: 'description is required in the front matter' })
        .trim()
        .min(1, 'description is required in the front matter'),
    },
    { error: 'the front matter must be a mapping with name and description' },
  )
  .loose();

export const SkillInputSchema = z.object({
  content: z.string({ error: 'content must be the SKILL.md text' }).max(512 * 1024, 'content must be at most 512 KiB'),
});

export type FrontMatter = z.infer<typeof FrontMatterSchema>;

export interface SkillSummary {
  name: string;
  description: string | null;
  errors: string[];
}

export interface SkillDocument extends SkillSummary {
  content: string;
}
