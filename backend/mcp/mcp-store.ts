import type { SerialQueue } from '../data/serial-queue.js';
import { configInvalid, readJsonFile, writeJsonFile } from '../data/document-file.js';
import { fieldPath } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import { McpFileSchema, type McpFile, type McpServer, type McpView } from './mcp-api.js';

export const CLI_SERVER_NAME = 'cli';

/** Global and per-workspace tool-server files; the `-mcp` URL is shown as the read-only `cli`. */
export class McpStore {
  constructor(
    private readonly queue: SerialQueue,
    private readonly cliUrl?: string,
  ) {}

  private readonlyServers(global: boolean): McpView['readonly'] {
    if (!global || !this.cliUrl) return {};
    const type = /\/sse\/?$/.test(this.cliUrl) ? 'sse' : 'http';
    return { [CLI_SERVER_NAME]: { type, url: this.cliUrl, source: 'cli' } as McpServer & { source: 'cli' } };
  }

  private async readFile(
    file: string,
  ): Promise<{ raw: Record<string, unknown>; view: McpView['mcpServers']; problem: McpView['errors'][number] | null }> {
    const read = await readJsonFile(file);
    if (!read.ok) return { raw: {}, view: {}, problem: read.problem };
    if (!read.exists) return { raw: {}, view: {}, problem: null };
    const parsed = McpFileSchema.safeParse(read.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const raw = typeof read.value === 'object' && read.value !== null ? (read.value as Record<string, unknown>) : {};
      const servers = (raw.mcpServers ?? {}) as Record<string, unknown>;
      return { raw, view: servers, problem: { file, line: null, message: `${fieldPath(issue?.path ?? [])}: ${issue?.message}` } };
    }
    return { raw: parsed.data as Record<string, unknown>, view: parsed.data.mcpServers, problem: null };
  }

  async get(file: string, global: boolean): Promise<McpView> {
    const { view, problem } = await this.readFile(file);
    return { mcpServers: view, readonly: this.readonlyServers(global), errors: problem ? [problem] : [] };
  }

  /** Replaces the servers; other top-level keys of the file (a client's own settings) are kept. */
  async put(file: string, global: boolean, input: McpFile): Promise<McpView> {
    if (global && this.cliUrl && CLI_SERVER_NAME in input.mcpServers) {
      throw new ApiError('validation_failed', `mcpServers.${CLI_SERVER_NAME} is reserved for the -mcp server and read-only.`, {
        field: `mcpServers.${CLI_SERVER_NAME}`,
      });
    }
    return this.queue.run(file, async () => {
      const read = await readJsonFile(file);
      if (!read.ok) throw configInvalid([read.problem]);
      const old =
        typeof read.value === 'object' && read.value !== null && !Array.isArray(read.value) ? (read.value as Record<string, unknown>) : {};
      await writeJsonFile(file, { ...old, ...input });
      return this.get(file, global);
    });
  }

  /** "Always allow": adds `tool` to the entry's `always_allow`, keeping everything else in the file. */
  async allowTool(file: string, server: string, tool: string): Promise<void> {
    await this.queue.run(file, async () => {
      const read = await readJsonFile(file);
      if (!read.ok) throw configInvalid([read.problem]);
      const doc = (read.value ?? {}) as { mcpServers?: Record<string, Record<string, unknown>> };
      const entry = doc.mcpServers?.[server];
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        throw new ApiError('not_found', `No tool server named ${server} in ${file}.`);
      }
      const list = Array.isArray(entry.always_allow) ? entry.always_allow.filter((t) => typeof t === 'string') : [];
      if (list.includes(tool)) return;
      entry.always_allow = [...list, tool];
      await writeJsonFile(file, doc);
    });
  }
}
