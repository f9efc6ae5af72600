import type { McpConnection } from './mcp-connection.js';
import type { FeatureProblem, PromptInfo, PromptMessage, ResourceInfo } from './mcp-status-api.js';

// MCP prompts and resources of a workspace's servers (DESIGN 9). Nothing is cached: every listing
// asks the servers, so prompts/resources `list_changed` is honoured by construction.

const MAX_PAGES = 20;
const TIMEOUT_MS = 15_000;

type Listed<T> = { items: T[]; problems: FeatureProblem[] };

async function eachServer<T>(
  conns: McpConnection[],
  feature: 'prompts' | 'resources',
  list: (conn: McpConnection) => Promise<T[]>,
): Promise<Listed<T>> {
  const items: T[] = [];
  const problems: FeatureProblem[] = [];
  const results = await Promise.all(
    conns.map(async (conn) => {
      if (conn.state === 'failed') return { conn, error: conn.error ?? 'failed to start' };
      if (!conn.offers(feature)) return { conn, items: [] as T[] };
      try {
        return { conn, items: await list(conn) };
      } catch (err) {
        return { conn, error: (err as Error).message };
      }
    }),
  );
  for (const r of results) {
    if ('error' in r && r.error !== undefined) problems.push({ server: r.conn.server.name, error: r.error });
    else items.push(...(r.items ?? []));
  }
  return { items, problems };
}

export function listPrompts(conns: McpConnection[]): Promise<Listed<PromptInfo>> {
  return eachServer(conns, 'prompts', (conn) =>
    conn.request(async (client) => {
      const out: PromptInfo[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < MAX_PAGES; i++) {
        const page = await client.listPrompts(cursor ? { cursor } : undefined, { timeout: TIMEOUT_MS });
        for (const p of page.prompts) {
          out.push({
            server: conn.server.name,
            name: p.name,
            description: p.description ?? p.title ?? '',
            arguments: (p.arguments ?? []).map((a) => ({ name: a.name, description: a.description ?? '', required: a.required === true })),
          });
        }
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      return out;
    }),
  );
}

export function listResources(conns: McpConnection[]): Promise<Listed<ResourceInfo>> {
  return eachServer(conns, 'resources', (conn) =>
    conn.request(async (client) => {
      const out: ResourceInfo[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < MAX_PAGES; i++) {
        const page = await client.listResources(cursor ? { cursor } : undefined, { timeout: TIMEOUT_MS });
        for (const r of page.resources) out.push({ server: conn.server.name, uri: r.uri, name: r.name || r.uri, mime: r.mimeType ?? null });
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      return out;
    }),
  );
}

type Content = { type: string; text?: string; mimeType?: string; resource?: { uri: string; text?: string; mimeType?: string } };

/** One message content of a prompt as text: images and blobs are named, not inlined. */
function contentText(c: Content): string {
  if (c.type === 'text') return c.text ?? '';
  if (c.type === 'resource' && c.resource)
    return c.resource.text ?? `[resource ${c.resource.uri}${c.resource.mimeType ? ` (${c.resource.mimeType})` : ''}]`;
  if (c.type === 'image' || c.type === 'audio') return `[${c.type}${c.mimeType ? ` ${c.mimeType}` : ''}]`;
  return `[${c.type}]`;
}

export async function getPrompt(conn: McpConnection, name: string, args: Record<string, string>): Promise<PromptMessage[]> {
  const result = await conn.request((client) => client.getPrompt({ name, arguments: args }, { timeout: TIMEOUT_MS }));
  return result.messages.map((m) => ({ role: m.role, text: contentText(m.content as Content) }));
}

export interface ResourceSnapshot {
  server: string;
  uri: string;
  parts: { mime: string | null; text?: string; blob?: string }[];
}

export async function readResource(conn: McpConnection, uri: string): Promise<ResourceSnapshot> {
  const result = await conn.request((client) => client.readResource({ uri }, { timeout: TIMEOUT_MS }));
  return {
    server: conn.server.name,
    uri,
    parts: result.contents.map((c) => ({
      mime: c.mimeType ?? null,
      ...('text' in c && typeof c.text === 'string' ? { text: c.text } : {}),
      ...('blob' in c && typeof c.blob === 'string' ? { blob: c.blob } : {}),
    })),
  };
}
