import { configInvalid, readJsonFile, writeJsonFile } from '../data/document-file.js';
import { validationError } from '../http/validation.js';
import type { DataPaths } from '../data/data-dir.js';
import type { SerialQueue } from '../data/serial-queue.js';
import { keepInTrash } from '../data/trash.js';
import { ApiError } from '../http/errors.js';
import { CONTROL_CHARS, McpFileSchema, type McpFile } from './mcp-api.js';
import { CLI_SERVER_NAME } from './mcp-store.js';

type Raw = Record<string, unknown>;

export interface McpScope {
  file: string;
  /** The global file (where `-mcp` reserves the name `cli`). */
  global: boolean;
  /** `global` or the workspace id, for messages and trash folder names. */
  label: string;
}

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Tool-server writes that never lose an entry: creating refuses a name in use (409
 * `already_exists`), and every replace or removal first keeps the previous entry in `trash/`.
 * Runs under the same per-file queue as McpStore, so it never races a whole-file PUT.
 */
export class McpEntryStore {
  constructor(
    private readonly queue: SerialQueue,
    private readonly paths: DataPaths,
    private readonly cliUrl?: string,
  ) {}

  private async read(file: string): Promise<{ raw: Raw; servers: Raw }> {
    const read = await readJsonFile(file);
    if (!read.ok) throw configInvalid([read.problem]);
    const raw = isObject(read.value) ? read.value : {};
    return { raw, servers: isObject(raw.mcpServers) ? raw.mcpServers : {} };
  }

  private checkEntry(scope: McpScope, name: string, server: unknown): void {
    if (CONTROL_CHARS.test(name)) {
      throw new ApiError('validation_failed', 'name: server names must not contain control characters', { field: 'name' });
    }
    if (scope.global && this.cliUrl && name === CLI_SERVER_NAME) {
      throw new ApiError('already_exists', `A tool server named "${CLI_SERVER_NAME}" already exists: the read-only -mcp server.`, {
        field: 'name',
      });
    }
    const parsed = McpFileSchema.safeParse({ mcpServers: { [name]: server } });
    if (!parsed.success) throw validationError(parsed.error);
  }

  private async trash(scope: McpScope, removed: Raw): Promise<string | null> {
    const names = Object.keys(removed);
    if (names.length === 0) return null;
    const label = `mcp-${scope.label}-${names.length === 1 ? names[0].replace(/[^A-Za-z0-9_-]/g, '_') : 'servers'}`;
    return keepInTrash(this.paths, label, { 'mcp_servers.json': `${JSON.stringify({ mcpServers: removed }, null, 2)}\n` });
  }

  /** Adds one server; a name already in the file is a 409 naming it. */
  async create(scope: McpScope, name: string, server: unknown): Promise<void> {
    this.checkEntry(scope, name, server);
    await this.queue.run(scope.file, async () => {
      const { raw, servers } = await this.read(scope.file);
      if (name in servers) {
        throw new ApiError(
          'already_exists',
          `A tool server named "${name}" already exists in ${scope.label}; edit it or pick another name.`,
          {
            field: 'name',
          },
        );
      }
      await writeJsonFile(scope.file, { ...raw, mcpServers: { ...servers, [name]: server } });
    });
  }

  /** Replaces one existing server (404 if there is none); the previous entry goes to trash. */
  async replace(scope: McpScope, name: string, server: unknown): Promise<{ trashed_to: string | null }> {
    this.checkEntry(scope, name, server);
    return this.queue.run(scope.file, async () => {
      const { raw, servers } = await this.read(scope.file);
      if (!(name in servers)) throw new ApiError('not_found', `No tool server named "${name}" in ${scope.label}.`);
      const same = JSON.stringify(servers[name]) === JSON.stringify(server);
      const trashed = same ? null : await this.trash(scope, { [name]: servers[name] });
      await writeJsonFile(scope.file, { ...raw, mcpServers: { ...servers, [name]: server } });
      return { trashed_to: trashed };
    });
  }

  /** Removes one server; the entry goes to trash. */
  async remove(scope: McpScope, name: string): Promise<{ trashed_to: string | null }> {
    return this.queue.run(scope.file, async () => {
      const { raw, servers } = await this.read(scope.file);
      if (!(name in servers)) throw new ApiError('not_found', `No tool server named "${name}" in ${scope.label}.`);
      const { [name]: gone, ...rest } = servers;
      const trashed = await this.trash(scope, { [name]: gone });
      await writeJsonFile(scope.file, { ...raw, mcpServers: rest });
      return { trashed_to: trashed };
    });
  }

  /**
   * The whole-file PUT: replaces `mcpServers` (other top-level keys are kept), after keeping every
   * entry it changes or drops in trash.
   */
  async putFile(scope: McpScope, input: McpFile): Promise<void> {
    if (scope.global && this.cliUrl && CLI_SERVER_NAME in input.mcpServers) {
      throw new ApiError('validation_failed', `mcpServers.${CLI_SERVER_NAME} is reserved for the -mcp server and read-only.`, {
        field: `mcpServers.${CLI_SERVER_NAME}`,
      });
    }
    await this.queue.run(scope.file, async () => {
      const { raw, servers } = await this.read(scope.file);
      const removed: Raw = {};
      for (const [name, old] of Object.entries(servers)) {
        if (JSON.stringify(input.mcpServers[name]) !== JSON.stringify(old)) removed[name] = old;
      }
      await this.trash(scope, removed);
      await writeJsonFile(scope.file, { ...raw, ...input });
    });
  }
}
