import type { MessageKey } from '../i18n/i18n';

/** A well-known tool server the catalog adds in one click (DESIGN 9). */
export interface CatalogEntry {
  id: string;
  /** What runs it: Node's npx or Python's uvx (the card says which must be installed). */
  runner: 'npx' | 'uvx';
  /** Package or program, then its arguments; `{folder}` is the folder the user picks. */
  args: string[];
  /** The one input some servers need. */
  folder?: 'required';
  /** What it can do on this machine, in plain words. */
  can: MessageKey;
  title: MessageKey;
}

export const CATALOG: CatalogEntry[] = [
  {
    id: 'filesystem',
    runner: 'npx',
    args: ['-y', '@modelcontextprotocol/server-filesystem', '{folder}'],
    folder: 'required',
    title: 'catalog.filesystem',
    can: 'catalog.filesystemCan',
  },
  { id: 'fetch', runner: 'uvx', args: ['mcp-server-fetch'], title: 'catalog.fetch', can: 'catalog.fetchCan' },
  {
    id: 'git',
    runner: 'uvx',
    args: ['mcp-server-git', '--repository', '{folder}'],
    folder: 'required',
    title: 'catalog.git',
    can: 'catalog.gitCan',
  },
  { id: 'memory', runner: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], title: 'catalog.memory', can: 'catalog.memoryCan' },
  { id: 'time', runner: 'uvx', args: ['mcp-server-time'], title: 'catalog.time', can: 'catalog.timeCan' },
  {
    id: 'sequential-thinking',
    runner: 'npx',
    args: ['-y', '@modelcontextprotocol/server-sequential-thinking'],
    title: 'catalog.thinking',
    can: 'catalog.thinkingCan',
  },
  {
    id: 'everything',
    runner: 'npx',
    args: ['-y', '@modelcontextprotocol/server-everything'],
    title: 'catalog.everything',
    can: 'catalog.everythingCan',
  },
];

/** The `mcpServers` entry for a catalog server: asks before every tool, like anything added by hand. */
export function catalogServer(entry: CatalogEntry, folder: string): Record<string, unknown> {
  return { command: entry.runner, args: entry.args.map((a) => (a === '{folder}' ? folder.trim() : a)) };
}
