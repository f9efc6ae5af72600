import type { ToolCallOutcome, ToolSource, ToolSpec } from '../tools/tool-source.js';
import type { McpManager } from './mcp-manager.js';
import type { McpStore } from './mcp-store.js';
import type { ResolvedServer } from './server-config.js';
import { modelToolName } from './tool-names.js';

export interface McpToolSourceDeps {
  manager: McpManager;
  store: McpStore;
  /** Called after `remember` changed a tool-server file (`'global'` or the workspace id). */
  onConfigChanged?: (scope: string) => void;
}

/** The workspace's tool servers (merged over the global ones, plus `cli`) over MCP as a tool source. */
export class McpToolSource implements ToolSource {
  /** "Always allow" for the read-only `cli` server lives in memory (no file holds it). */
  private readonly cliAllowed = new Set<string>();

  constructor(private readonly deps: McpToolSourceDeps) {}

  private async enabledServers(workspaceId: string): Promise<ResolvedServer[]> {
    return (await this.deps.manager.servers(workspaceId)).filter((s) => !s.disabled);
  }

  private needsApproval(server: ResolvedServer, tool: string): boolean {
    if (server.approval === 'auto' || server.alwaysAllow.includes(tool)) return false;
    return !(server.source === 'cli' && this.cliAllowed.has(tool));
  }

  async list(workspaceId: string, signal: AbortSignal): Promise<ToolSpec[]> {
    const taken = new Set<string>();
    const specs: ToolSpec[] = [];
    const servers = await this.enabledServers(workspaceId);
    const conns = await this.deps.manager.startAll(servers, signal);
    // Approvals come from the entry as read now (a running connection may predate an always_allow edit).
    for (const [i, conn] of conns.entries()) {
      if (conn.state !== 'ready') continue;
      for (const tool of await conn.freshTools()) {
        specs.push({
          name: modelToolName(servers[i].name, tool.name, taken),
          description: tool.description,
          inputSchema: tool.inputSchema,
          server: servers[i].name,
          tool: tool.name,
          needsApproval: this.needsApproval(servers[i], tool.name),
        });
      }
    }
    return specs;
  }

  /**
   * A word about tool servers that could not start (so the model can tell the user). Starts nothing:
   * the turn loop lists the tools (which starts the servers) before asking.
   */
  async systemPrompt(workspaceId: string): Promise<string> {
    const failed = (await this.enabledServers(workspaceId)).map((s) => this.deps.manager.peek(s)).filter((c) => c?.state === 'failed');
    if (failed.length === 0) return '';
    return [
      '# Unavailable tool servers',
      'These tool servers are configured but could not be started, so their tools are missing. If the user asks for them, say so and quote the reason:',
      ...failed.map((c) => `- ${c!.server.name}: ${(c!.error ?? 'unknown error').replace(/\s*\n\s*/g, ' | ').slice(0, 300)}`),
    ].join('\n');
  }

  async call(workspaceId: string, spec: ToolSpec, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolCallOutcome> {
    const server = (await this.enabledServers(workspaceId)).find((s) => s.name === spec.server);
    if (!server) return { ok: false, content: `The tool server ${spec.server} is no longer configured.`, errorCode: 'tool_error' };
    return this.deps.manager.connection(server).call(spec.tool, args, signal);
  }

  toolsChanged(): boolean {
    return this.deps.manager.toolsChanged();
  }

  async remember(workspaceId: string, spec: ToolSpec): Promise<void> {
    const server = (await this.deps.manager.servers(workspaceId)).find((s) => s.name === spec.server);
    if (!server) return;
    if (server.source === 'cli' || !server.file) {
      this.cliAllowed.add(spec.tool);
      return;
    }
    await this.deps.store.allowTool(server.file, server.name, spec.tool);
    this.deps.onConfigChanged?.(server.source === 'workspace' ? workspaceId : 'global');
  }
}
