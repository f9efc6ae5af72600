import { promises as fs } from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { readIfExists, TEMP_PREFIX, writeFileAtomic } from '../data/atomic-write.js';
import type { DataPaths } from '../data/data-dir.js';
import type { SerialQueue } from '../data/serial-queue.js';
import type { FileProblem } from '../data/data-api.js';
import { configInvalid } from '../data/document-file.js';
import { assignNode } from '../data/yaml-edit.js';
import { isSafeName } from '../data/safe-name.js';
import { ApiError } from '../http/errors.js';
import { PROFILE_KEYS, ProfileSchema, type Profile, type ProfileView } from './profile-api.js';

interface ParsedProfile {
  doc: Document | null;
  profile: Profile;
  errors: FileProblem[];
}

/** Parses a profile file; never throws. A syntax error leaves `doc` null (the file is unwritable). */
export function parseProfile(file: string, text: string): ParsedProfile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const defaults = ProfileSchema.parse({});
  if (doc.errors.length > 0) {
    const errors = doc.errors.map((e) => ({ file, line: e.linePos?.[0]?.line ?? null, message: e.message.split('\n')[0] }));
    return { doc: null, profile: defaults, errors };
  }
  const raw: unknown = doc.toJS() ?? {};
  const parsed = ProfileSchema.safeParse(raw);
  if (parsed.success) return { doc, profile: parsed.data, errors: [] };
  const issue = parsed.error.issues[0];
  const node = doc.getIn((issue?.path as (string | number)[]) ?? [], true) as { range?: [number, number, number] } | undefined;
  const line = node?.range ? lineCounter.linePos(node.range[0]).line : null;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { doc: null, profile: defaults, errors: [{ file, line: 1, message: 'a profile must be a mapping' }] };
  return { doc, profile: defaults, errors: [{ file, line, message: `${issue?.path.join('.')}: ${issue?.message}` }] };
}

/** profiles/<id>.yaml: read with defaults filled, written through the YAML document. */
export class ProfileStore {
  constructor(
    private readonly paths: DataPaths,
    private readonly queue: SerialQueue,
    private readonly effectiveDefault: () => string | null,
  ) {}

  private view(id: string, parsed: ParsedProfile): ProfileView {
    const fallback = this.effectiveDefault();
    return {
      id,
      ...parsed.profile,
      model: parsed.profile.model ?? fallback,
      model_is_default: parsed.profile.model === undefined,
      errors: parsed.errors,
    };
  }

  async ids(): Promise<string[]> {
    const names = await fs.readdir(this.paths.profilesDir).catch(() => [] as string[]);
    return names
      .filter((n) => n.endsWith('.yaml') && !n.startsWith(TEMP_PREFIX))
      .map((n) => n.slice(0, -5))
      .sort();
  }

  async list(): Promise<ProfileView[]> {
    const out: ProfileView[] = [];
    for (const id of await this.ids()) {
      const view = await this.get(id);
      if (view) out.push(view);
    }
    return out;
  }

  async get(id: string): Promise<ProfileView | undefined> {
    // A hand-edited workspaces.json may name "../config": never read outside profiles/.
    if (!isSafeName(id)) return undefined;
    const file = this.paths.profile(id);
    const text = await readIfExists(file);
    return text === undefined ? undefined : this.view(id, parseProfile(file, text));
  }

  async exists(id: string): Promise<boolean> {
    if (!isSafeName(id)) return false;
    return (await readIfExists(this.paths.profile(id))) !== undefined;
  }

  /** Creates or replaces; `body` is the validated client body as sent (defaults stay implicit). */
  async put(id: string, body: Record<string, unknown>, mode: 'create' | 'upsert'): Promise<{ created: boolean; profile: ProfileView }> {
    const file = this.paths.profile(id);
    return this.queue.run(file, async () => {
      const text = await readIfExists(file);
      if (text !== undefined && mode === 'create')
        throw new ApiError('conflict', `A profile with id ${id} already exists.`, { field: 'id' });
      let doc: Document;
      if (text === undefined) doc = parseDocument('{}');
      else {
        const parsed = parseProfile(file, text);
        if (!parsed.doc) throw configInvalid(parsed.errors);
        doc = parsed.doc;
      }
      doc.contents = assignNode(doc, doc.contents, body, { prune: PROFILE_KEYS }) as typeof doc.contents;
      const out = doc.toString();
      await writeFileAtomic(file, out, { mode: 0o600 });
      return { created: text === undefined, profile: this.view(id, parseProfile(file, out)) };
    });
  }

  async delete(id: string): Promise<void> {
    const file = this.paths.profile(id);
    await this.queue.run(file, async () => {
      try {
        await fs.rm(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ApiError('not_found', `No profile with id ${id}.`);
        throw err;
      }
    });
  }
}
