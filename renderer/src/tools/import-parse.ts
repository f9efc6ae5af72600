import { kindOf } from './server-draft';

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const looksLikeServer = (v: unknown) => isObject(v) && (typeof v.command === 'string' || typeof v.url === 'string');

export type ParsedImport =
  { ok: true; servers: [string, Raw][] } | { ok: false; reason: 'json'; message: string } | { ok: false; reason: 'none' };

/**
 * Servers from a pasted snippet as assistant apps export them: `{"mcpServers": {…}}`, VS Code's
 * `{"servers": {…}}` or `{"mcp": {"servers": {…}}}`, a bare `{"name": {…}}` map, or the
 * `"name": {…}` lines copied out of one (braces added).
 */
export function parseServersSnippet(text: string): ParsedImport {
  const trimmed = text.trim();
  if (!trimmed) return { ok: false, reason: 'none' };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (err) {
    try {
      value = JSON.parse(`{${trimmed.replace(/,\s*$/, '')}}`);
    } catch {
      return { ok: false, reason: 'json', message: (err as Error).message };
    }
  }
  if (!isObject(value)) return { ok: false, reason: 'none' };
  const inner = isObject(value.mcp) ? value.mcp.servers : undefined;
  const map = [value.mcpServers, value.servers, inner].find(isObject) ?? value;
  const servers = Object.entries(map).filter(([, s]) => looksLikeServer(s)) as [string, Raw][];
  return servers.length ? { ok: true, servers } : { ok: false, reason: 'none' };
}

/** What the preview shows for a server: its command line or URL. */
export function targetOf(server: Raw): string {
  return kindOf(server) === 'stdio'
    ? [server.command, ...(Array.isArray(server.args) ? server.args : [])].map(String).join(' ')
    : String(server.url ?? '');
}

/** True when an imported entry would run tools without asking (`approval: "auto"` or `always_allow`). */
export function grantsOf(server: Raw): { auto: boolean; tools: string[] } {
  const tools = Array.isArray(server.always_allow) ? server.always_allow.map(String) : [];
  return { auto: server.approval === 'auto', tools };
}

/** DESIGN 9: an imported entry asks for every tool unless the user keeps what the snippet granted. */
export function asImported(server: Raw, keepGrants: boolean): Raw {
  if (keepGrants) return server;
  const { approval: _a, always_allow: _l, ...rest } = server;
  return rest;
}
