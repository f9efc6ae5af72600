import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { DataPaths } from '../data/data-dir.js';
import type { SerialQueue } from '../data/serial-queue.js';
import type { FileProblem } from '../data/data-api.js';
import { configInvalid, readJsonFile, writeJsonFile } from '../data/document-file.js';
import { moveToTrash } from '../data/trash.js';
import { ApiError } from '../http/errors.js';
import {
  WorkspaceIndexSchema,
  type WorkspaceCreate,
  type WorkspaceEntry,
  type WorkspaceIndex,
  type WorkspaceUpdate,
} from './workspace-api.js';

type IndexRead = { index: WorkspaceIndex; problem: null } | { index: WorkspaceIndex; problem: FileProblem };

/** The workspace list (workspaces.json) and each workspace's folder and workspace.json. */
export class WorkspaceStore {
  constructor(
    private readonly paths: DataPaths,
    private readonly queue: SerialQueue,
  ) {}

  private async readIndex(): Promise<IndexRead> {
    const file = this.paths.workspacesIndex;
    const read = await readJsonFile(file);
    if (!read.ok) return { index: { workspaces: [] }, problem: read.problem };
    if (!read.exists) return { index: { workspaces: [] }, problem: null };
    const parsed = WorkspaceIndexSchema.safeParse(read.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        index: { workspaces: [] },
        problem: { file, line: null, message: `${issue?.path.join('.') || 'top level'}: ${issue?.message}` },
      };
    }
    return { index: parsed.data, problem: null };
  }

  async list(): Promise<{ workspaces: WorkspaceEntry[]; errors: FileProblem[] }> {
    const { index, problem } = await this.readIndex();
    return { workspaces: index.workspaces, errors: problem ? [problem] : [] };
  }

  async get(id: string): Promise<(WorkspaceEntry & Record<string, unknown>) | undefined> {
    const entry = (await this.readIndex()).index.workspaces.find((w) => w.id === id);
    if (!entry) return undefined;
    const meta = await readJsonFile(this.paths.workspaceMeta(id));
    const extra = meta.ok && typeof meta.value === 'object' && meta.value !== null ? (meta.value as Record<string, unknown>) : {};
    return { ...extra, ...entry };
  }

  async usedBy(profileId: string): Promise<WorkspaceEntry[]> {
    return (await this.readIndex()).index.workspaces.filter((w) => w.profile_id === profileId);
  }

  /** Read-modify-write of the index, serialized; a broken index is never overwritten. */
  private edit<T>(mutate: (index: WorkspaceIndex) => Promise<T>): Promise<T> {
    return this.queue.run(this.paths.workspacesIndex, async () => {
      const { index, problem } = await this.readIndex();
      if (problem) throw configInvalid([problem]);
      const result = await mutate(index);
      await writeJsonFile(this.paths.workspacesIndex, index);
      return result;
    });
  }

  /** workspace.json: the index entry plus the fields only it holds (`instructions`); returns what it holds. */
  private async writeMeta(entry: WorkspaceEntry, extra: Record<string, unknown> = {}): Promise<WorkspaceEntry & Record<string, unknown>> {
    const file = this.paths.workspaceMeta(entry.id);
    const meta = await readJsonFile(file);
    const old = meta.ok && typeof meta.value === 'object' && meta.value !== null ? meta.value : {};
    const next = { ...old, ...extra, ...entry, updated_at: new Date().toISOString() };
    await writeJsonFile(file, next);
    return next;
  }

  create(input: WorkspaceCreate): Promise<WorkspaceEntry> {
    return this.edit(async (index) => {
      const id = `ws-${randomBytes(6).toString('hex')}`;
      const entry: WorkspaceEntry = { id, name: input.name, profile_id: input.profile_id ?? null, created_at: new Date().toISOString() };
      await fs.mkdir(this.paths.workspaceSessions(id), { recursive: true, mode: 0o700 });
      const full = await this.writeMeta(entry, metaFields(input));
      index.workspaces.push(entry);
      return withInstructions(entry, full);
    });
  }

  update(id: string, input: WorkspaceUpdate): Promise<WorkspaceEntry> {
    return this.edit(async (index) => {
      const entry = index.workspaces.find((w) => w.id === id);
      if (!entry) throw new ApiError('not_found', `No workspace with id ${id}.`);
      if (input.name !== undefined) entry.name = input.name;
      if (input.profile_id !== undefined) entry.profile_id = input.profile_id;
      await fs.mkdir(this.paths.workspaceDir(id), { recursive: true, mode: 0o700 });
      return withInstructions(entry, await this.writeMeta(entry, metaFields(input)));
    });
  }

  /** Removes the workspace from the list and moves its folder (session history included) to trash. */
  delete(id: string): Promise<string | null> {
    return this.edit(async (index) => {
      const at = index.workspaces.findIndex((w) => w.id === id);
      if (at < 0) throw new ApiError('not_found', `No workspace with id ${id}.`);
      index.workspaces.splice(at, 1);
      return moveToTrash(this.paths, this.paths.workspaceDir(id), `workspace-${id}`);
    });
  }
}

/** The fields only workspace.json holds, as a create or update sets them. */
function metaFields(input: WorkspaceCreate | WorkspaceUpdate): Record<string, unknown> {
  return {
    ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
    ...(input.knowledge_bases !== undefined ? { knowledge_bases: input.knowledge_bases } : {}),
  };
}

/** The index entry as the API answers it, with the workspace's instructions and knowledge bases when it has any. */
function withInstructions(
  entry: WorkspaceEntry,
  full: Record<string, unknown>,
): WorkspaceEntry & { instructions?: string; knowledge_bases?: string[] } {
  return {
    ...entry,
    ...(typeof full.instructions === 'string' ? { instructions: full.instructions } : {}),
    ...(Array.isArray(full.knowledge_bases) ? { knowledge_bases: full.knowledge_bases as string[] } : {}),
  };
}
