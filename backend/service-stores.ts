import type { ConfigStore } from './config/config-store.js';
import { ConfigWriter } from './config/config-writer.js';
import type { DataPaths } from './data/data-dir.js';
import { SerialQueue } from './data/serial-queue.js';
import { McpEntryStore } from './mcp/mcp-entry-store.js';
import { McpStore } from './mcp/mcp-store.js';
import { ProfileStore } from './profiles/profile-store.js';
import { SkillStore } from './skills/skill-store.js';
import { WorkspaceStore } from './workspaces/workspace-store.js';
import { KnowledgeService, type KnowledgeServiceOptions } from './knowledge/knowledge-service.js';

// The composition of every store over the data directory, beside service.ts (the composition root):
// areas never import this file; each route and the chat engine names the stores it uses.

/** The stores behind the configuration API. One queue, keyed by file, serializes every write. */
export interface ManagedStores {
  config: ConfigStore;
  writer: ConfigWriter;
  profiles: ProfileStore;
  workspaces: WorkspaceStore;
  mcp: McpStore;
  /** One-server create/replace/remove with trash (create never replaces). */
  mcpEntries: McpEntryStore;
  skills: SkillStore;
  paths: DataPaths;
  /** Knowledge bases (DESIGN 13); the chat loop reads them through the KnowledgeReader interface. */
  knowledge: KnowledgeService;
}

export function createManagedStores(deps: {
  config: ConfigStore;
  paths: DataPaths;
  mcpUrl?: string;
  /** URL sources' page reader, progress frames and the log line sink. */
  knowledge: Pick<KnowledgeServiceOptions, 'fetchPage' | 'progress' | 'log'>;
}): ManagedStores {
  const queue = new SerialQueue();
  const { config, paths } = deps;
  return {
    config,
    writer: new ConfigWriter(config, queue),
    profiles: new ProfileStore(paths, queue, () => config.effectiveDefault()),
    workspaces: new WorkspaceStore(paths, queue),
    mcp: new McpStore(queue, deps.mcpUrl || undefined),
    mcpEntries: new McpEntryStore(queue, paths, deps.mcpUrl || undefined),
    skills: new SkillStore(paths, queue),
    paths,
    knowledge: new KnowledgeService({ paths, config, ...deps.knowledge }),
  };
}
