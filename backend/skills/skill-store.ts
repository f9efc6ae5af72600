import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { readIfExists, writeFileAtomic } from '../data/atomic-write.js';
import type { DataPaths } from '../data/data-dir.js';
import type { SerialQueue } from '../data/serial-queue.js';
import { ApiError } from '../http/errors.js';
import { keepInTrash, moveToTrash } from '../data/trash.js';
import { FrontMatterSchema, SKILL_NAME, type FrontMatter, type SkillDocument, type SkillSummary } from './skill-api.js';

const FRONT_MATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Reads the front matter; returns the parsed fields or the reason they are unusable. */
export function readFrontMatter(content: string): { ok: true; value: FrontMatter } | { ok: false; message: string } {
  const m = FRONT_MATTER.exec(content);
  if (!m) return { ok: false, message: 'content must start with YAML front matter between "---" lines' };
  let raw: unknown;
  try {
    raw = parseYaml(m[1]);
  } catch (err) {
    return { ok: false, message: `the front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}` };
  }
  const parsed = FrontMatterSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, message: parsed.error.issues[0]?.message ?? 'invalid front matter' };
  return { ok: true, value: parsed.data };
}

/** User skills, one folder each; the folder name is the skill name. */
export class SkillStore {
  constructor(
    private readonly paths: DataPaths,
    private readonly queue: SerialQueue,
  ) {}

  private summarize(name: string, content: string): SkillDocument {
    const fm = readFrontMatter(content);
    return fm.ok
      ? { name, description: fm.value.description, errors: [], content }
      : { name, description: null, errors: [fm.message], content };
  }

  async list(): Promise<SkillSummary[]> {
    const entries = await fs.readdir(this.paths.skillsDir, { withFileTypes: true }).catch(() => []);
    const out: SkillSummary[] = [];
    for (const entry of entries.filter((e) => e.isDirectory() && SKILL_NAME.test(e.name)).sort((a, b) => a.name.localeCompare(b.name))) {
      const content = await readIfExists(this.paths.skill(entry.name));
      if (content === undefined) continue;
      const { content: _omit, ...summary } = this.summarize(entry.name, content);
      out.push(summary);
    }
    return out;
  }

  async get(name: string): Promise<SkillDocument | undefined> {
    const content = await readIfExists(this.paths.skill(name));
    return content === undefined ? undefined : this.summarize(name, content);
  }

  /**
   * Writes SKILL.md after checking its front matter; the front matter's name must be the folder's.
   * `createOnly` refuses an existing skill (409 `already_exists`); a replace first keeps the previous
   * SKILL.md in trash/.
   */
  async put(
    name: string,
    content: string,
    options: { createOnly?: boolean } = {},
  ): Promise<{ created: boolean; skill: SkillDocument; trashed_to: string | null }> {
    const fm = readFrontMatter(content);
    if (!fm.ok) throw new ApiError('validation_failed', `content: ${fm.message}`, { field: 'content' });
    if (fm.value.name !== name) {
      throw new ApiError('validation_failed', `content: the front matter name (${fm.value.name}) must equal the skill name ${name}`, {
        field: 'content',
      });
    }
    const file = this.paths.skill(name);
    return this.queue.run(file, async () => {
      const previous = await readIfExists(file);
      if (previous !== undefined && options.createOnly) {
        throw new ApiError('already_exists', `A skill named "${name}" already exists; edit it or pick another name.`, { field: 'name' });
      }
      const trashed =
        previous !== undefined && previous !== content ? await keepInTrash(this.paths, `skill-${name}`, { 'SKILL.md': previous }) : null;
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await writeFileAtomic(file, content, { mode: 0o600 });
      return { created: previous === undefined, skill: this.summarize(name, content), trashed_to: trashed };
    });
  }

  /** Moves the skill's folder to the trash folder inside the data directory. */
  async delete(name: string): Promise<void> {
    const file = this.paths.skill(name);
    await this.queue.run(file, async () => {
      const moved = await moveToTrash(this.paths, path.dirname(file), `skill-${name}`);
      if (!moved) throw new ApiError('not_found', `No skill named ${name}.`);
    });
  }
}
