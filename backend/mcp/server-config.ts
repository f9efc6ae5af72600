import type { DataPaths } from '../data/data-dir.js';
import { CONTROL_CHARS, REMOTE_TYPES, RemoteServerSchema, StdioServerSchema } from './mcp-api.js';
import type { McpStore } from './mcp-store.js';

export type ServerSource = 'global' | 'workspace' | 'cli';
export type TransportKind = 'stdio' | 'http' | 'sse';

interface Common {
  name: string;
  source: ServerSource;
  /** File holding the entry (where `remember` writes); none for `cli`. */
  file?: string;
  /** Identity of the running connection: the scope and everything that changes how it starts. */
  key: string;
  approval: 'auto' | 'ask';
  alwaysAllow: string[];
  disabled: boolean;
}

export type ResolvedServer =
  | (Common & { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string })
  | (Common & { transport: 'http' | 'sse'; url: string; headers: Record<string, string> })
  | (Common & { transport: 'invalid'; problem: string });

/** Keys that do not change how a server runs (editing them must not restart it). */
const NON_RUNTIME_KEYS = new Set(['approval', 'always_allow', 'autoApprove', 'description']);

function fingerprint(entry: Record<string, unknown>): string {
  const kept = Object.entries(entry).filter(([k]) => !NON_RUNTIME_KEYS.has(k));
  return JSON.stringify(kept.sort(([a], [b]) => a.localeCompare(b)));
}

/** One `mcpServers` entry as the runtime needs it; a broken entry becomes `invalid` with the reason. */
export function resolveEntry(name: string, raw: unknown, source: ServerSource, scope: string, file?: string): ResolvedServer {
  const entry = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const common: Common = {
    name,
    source,
    file,
    key: `${scope}\u0000${name}\u0000${fingerprint(entry)}`,
    approval: entry.approval === 'auto' ? 'auto' : 'ask',
    alwaysAllow: Array.isArray(entry.always_allow) ? entry.always_allow.filter((t): t is string => typeof t === 'string') : [],
    disabled: entry.disabled === true,
  };
  // A hand-edited file can hold what the API refuses; such an entry never runs.
  if (CONTROL_CHARS.test(name)) return { ...common, transport: 'invalid', problem: 'server names must not contain control characters' };
  const type = entry.type;
  const remote = type !== undefined ? type !== 'stdio' : entry.url !== undefined && entry.command === undefined;
  if (remote) {
    const parsed = RemoteServerSchema.safeParse(entry);
    if (!parsed.success || (type !== undefined && !REMOTE_TYPES.includes(type as never))) {
      return {
        ...common,
        transport: 'invalid',
        problem: parsed.success ? 'type must be stdio, http or sse' : parsed.error.issues[0].message,
      };
    }
    return { ...common, transport: type === 'sse' ? 'sse' : 'http', url: parsed.data.url, headers: parsed.data.headers ?? {} };
  }
  const parsed = StdioServerSchema.safeParse(entry);
  if (!parsed.success) return { ...common, transport: 'invalid', problem: parsed.error.issues[0].message };
  const cwd = typeof entry.cwd === 'string' && entry.cwd ? entry.cwd : undefined;
  return { ...common, transport: 'stdio', command: parsed.data.command, args: parsed.data.args ?? [], env: parsed.data.env ?? {}, cwd };
}

/**
 * The servers of a workspace: global ones, the `-mcp` server as `cli`, then the workspace's own
 * (a workspace entry replaces a global one of the same name). Without a workspace: global + cli.
 */
export async function resolveServers(store: McpStore, paths: DataPaths, workspaceId?: string): Promise<ResolvedServer[]> {
  const byName = new Map<string, ResolvedServer>();
  const global = await store.get(paths.globalMcp, true);
  for (const [name, raw] of Object.entries(global.mcpServers))
    byName.set(name, resolveEntry(name, raw, 'global', 'global', paths.globalMcp));
  for (const [name, raw] of Object.entries(global.readonly)) byName.set(name, resolveEntry(name, raw, 'cli', 'cli'));
  if (workspaceId !== undefined) {
    const file = paths.workspaceMcp(workspaceId);
    const own = await store.get(file, false);
    for (const [name, raw] of Object.entries(own.mcpServers))
      byName.set(name, resolveEntry(name, raw, 'workspace', `ws:${workspaceId}`, file));
  }
  return [...byName.values()];
}
