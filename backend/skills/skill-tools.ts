import type { ToolCallOutcome, ToolSource, ToolSpec } from '../tools/tool-source.js';
import type { SkillSummary } from './skill-api.js';
import type { SkillStore } from './skill-store.js';

/** The built-in tool that loads a skill's body into the conversation. */
export const ACTIVATE_SKILL = 'activate_skill';
export const SKILLS_SERVER = 'skills';

const FRONT_MATTER = /^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;

/** Skills the model may load: those whose SKILL.md has a usable name and description. */
export function usableSkills(skills: SkillSummary[]): (SkillSummary & { description: string })[] {
  return skills.filter((s): s is SkillSummary & { description: string } => s.description !== null && s.errors.length === 0);
}

/**
 * The catalog for the system prompt: name and description of each skill and plain words on when and
 * how to load one (models rarely load a skill unless told so directly).
 */
export function skillCatalog(skills: SkillSummary[]): string {
  const usable = usableSkills(skills);
  if (usable.length === 0) return '';
  const lines = usable.map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, ' ').trim()}`);
  return [
    '# Skills',
    'Skills are instructions for particular kinds of tasks, written by the user. These skills are available:',
    ...lines,
    '',
    `When the user's request matches the description of a skill, call the tool \`${ACTIVATE_SKILL}\` with that skill's name ` +
      'before you answer, then follow the instructions it returns. Load a skill only when it is relevant, and do not load ' +
      'a skill again when its instructions are already in the conversation.',
  ].join('\n');
}

export function activateSkillSpec(skills: SkillSummary[]): ToolSpec | undefined {
  const names = usableSkills(skills).map((s) => s.name);
  if (names.length === 0) return undefined;
  return {
    name: ACTIVATE_SKILL,
    description:
      'Loads the full instructions of one of the skills listed in the system prompt. Call it before doing a task a skill covers.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', enum: names, description: 'The skill to load.' } },
      required: ['name'],
      additionalProperties: false,
    },
    server: SKILLS_SERVER,
    tool: ACTIVATE_SKILL,
    needsApproval: false,
  };
}

/** The skill body (front matter removed), marked so the model and compaction recognise it. */
export async function activateSkill(store: SkillStore, args: Record<string, unknown>): Promise<ToolCallOutcome> {
  const name = args.name;
  if (typeof name !== 'string' || !name) {
    return { ok: false, content: 'activate_skill needs the argument "name" (one of the listed skills).', errorCode: 'tool_error' };
  }
  const doc = /^[A-Za-z0-9_-]{1,64}$/.test(name) ? await store.get(name) : undefined;
  if (!doc || doc.description === null) {
    const known = usableSkills(await store.list()).map((s) => s.name);
    return { ok: false, content: `There is no skill named "${name}". Available: ${known.join(', ') || 'none'}.`, errorCode: 'tool_error' };
  }
  const body = doc.content.replace(FRONT_MATTER, '').trim();
  return {
    ok: true,
    content: `<skill name="${name}">\nThe skill "${name}" is loaded. Follow these instructions:\n\n${body}\n</skill>`,
    keepOnCompaction: true,
  };
}

/** The built-in skill loader as a tool source: the catalog in the system prompt, `activate_skill` to load one. */
export class SkillToolSource implements ToolSource {
  constructor(private readonly store: SkillStore) {}

  async list(): Promise<ToolSpec[]> {
    const spec = activateSkillSpec(await this.store.list());
    return spec ? [spec] : [];
  }

  async systemPrompt(): Promise<string> {
    return skillCatalog(await this.store.list());
  }

  call(_workspaceId: string, _spec: ToolSpec, args: Record<string, unknown>): Promise<ToolCallOutcome> {
    return activateSkill(this.store, args);
  }

  /** Loading a skill never asks for approval: nothing to remember. */
  async remember(): Promise<void> {}
}
