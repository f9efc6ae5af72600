// The seam between the chat turn loop (backend/chat) and what runs tools (tool servers over MCP,
// skills). The turn loop offers `ToolSpec`s to the model in each protocol's own shape, waits for
// approval where `needsApproval`, and hands calls to the provider; the provider owns starting
// servers, per-call timeouts and cutting results.

/** One tool as the model sees it. */
export interface ToolSpec {
  /** Model-facing name: `<server>__<tool>`, characters outside `[A-Za-z0-9_-]` replaced by `_`, at most 64. */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  inputSchema: Record<string, unknown>;
  /** Tool-server name (`skills` for built-in skill tools). */
  server: string;
  /** Tool name as the server lists it. */
  tool: string;
  /** True when a call must wait for the approvals endpoint. */
  needsApproval: boolean;
}

export interface ToolCallOutcome {
  ok: boolean;
  /** Result text for the model (already cut to the size limit). */
  content: string;
  /** Failure kind, when `ok` is false (e.g. `tool_error`, `denied`, `timeout`). */
  errorCode?: string;
  /** Kept verbatim when the session is compacted (loaded skill bodies). */
  keepOnCompaction?: boolean;
}

export interface ToolProvider {
  /** Tools offered in a turn of this workspace. */
  list(workspaceId: string, signal: AbortSignal): Promise<ToolSpec[]>;
  /** Extra system-prompt text for this workspace (the skill catalog), or '' for none. */
  systemPrompt(workspaceId: string): Promise<string>;
  call(workspaceId: string, spec: ToolSpec, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolCallOutcome>;
  /** True when a tool server announced a changed tool list since it was last listed (list again before the next request). */
  toolsChanged?(): boolean;
  /** "Always allow this tool": persist the tool in its server entry's `always_allow`. */
  remember(workspaceId: string, spec: ToolSpec): Promise<void>;
}

/** No tools and no skills: what the engine uses until a provider is wired in. */
export const noTools: ToolProvider = {
  list: async () => [],
  systemPrompt: async () => '',
  call: async () => ({ ok: false, content: 'No tools are available.', errorCode: 'tool_error' }),
  remember: async () => {},
};
