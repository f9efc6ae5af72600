/** One tool server as the form edits it, and the conversion to/from the `mcpServers` shape. */
export type ServerKind = 'stdio' | 'http' | 'sse';

export interface ServerDraft {
  name: string;
  kind: ServerKind;
  command: string;
  args: string;
  env: string;
  url: string;
  headers: string;
  /** DESIGN 9: shown and editable, never hidden in the file. */
  approval: 'ask' | 'auto';
  alwaysAllow: string[];
}

export const EMPTY_SERVER: ServerDraft = {
  name: '',
  kind: 'stdio',
  command: '',
  args: '',
  env: '',
  url: '',
  headers: '',
  approval: 'ask',
  alwaysAllow: [],
};

/** The approval keys of an entry as stored (`approval` absent means ask). */
export function approvalOf(server: Raw): { approval: 'ask' | 'auto'; alwaysAllow: string[] } {
  return {
    approval: server.approval === 'auto' ? 'auto' : 'ask',
    alwaysAllow: Array.isArray(server.always_allow) ? server.always_allow.filter((t): t is string => typeof t === 'string') : [],
  };
}

type Raw = Record<string, unknown>;

export function kindOf(server: Raw): ServerKind {
  if (server.type === 'sse') return 'sse';
  if (server.type === 'http' || server.type === 'streamable-http' || (server.url !== undefined && server.command === undefined))
    return 'http';
  return 'stdio';
}

function pairs(record: unknown, sep: string): string {
  if (typeof record !== 'object' || record === null) return '';
  return Object.entries(record as Record<string, unknown>)
    .map(([k, v]) => `${k}${sep}${String(v)}`)
    .join('\n');
}

function parsePairs(text: string, sep: RegExp): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const m = sep.exec(trimmed);
    if (!m) out[trimmed] = '';
    else out[trimmed.slice(0, m.index).trim()] = trimmed.slice(m.index + m[0].length).trim();
  }
  return Object.keys(out).length ? out : undefined;
}

export function draftFromServer(name: string, server: Raw): ServerDraft {
  return {
    name,
    kind: kindOf(server),
    command: typeof server.command === 'string' ? server.command : '',
    args: Array.isArray(server.args) ? server.args.join('\n') : '',
    env: pairs(server.env, '='),
    url: typeof server.url === 'string' ? server.url : '',
    headers: pairs(server.headers, ': '),
    ...approvalOf(server),
  };
}

/** Keys the form does not show (disabled, autoApprove, …) survive the edit. */
export function serverFromDraft(d: ServerDraft, previous: Raw = {}): Raw {
  const { command: _c, args: _a, env: _e, url: _u, headers: _h, type: _t, approval: _p, always_allow: _l, ...rest } = previous;
  const kept = {
    ...rest,
    ...(d.approval === 'auto' ? { approval: 'auto' } : {}),
    ...(d.alwaysAllow.length ? { always_allow: d.alwaysAllow } : {}),
  };
  if (d.kind === 'stdio') {
    const args = d.args
      .split('\n')
      .map((a) => a.trim())
      .filter(Boolean);
    const env = parsePairs(d.env, /=/);
    return { ...kept, command: d.command.trim(), ...(args.length ? { args } : {}), ...(env ? { env } : {}) };
  }
  const headers = parsePairs(d.headers, /:/);
  return { ...kept, type: d.kind, url: d.url.trim(), ...(headers ? { headers } : {}) };
}
