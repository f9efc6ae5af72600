// The seam between the chat turn loop and what runs tools. Tool servers (mcp/) and skills (skills/)
// each implement ToolSource; service.ts combines them (combined-tools.ts) and hands the result to the
// chat engine. The turn loop offers the specs to the model, waits for approval where `needsApproval`,
// and hands calls back; a source owns starting servers, per-call timeouts and cutting results.
import type { ToolDefinition } from '../llm/llm-types.js';

/** One tool as the model sees it, plus where it runs and whether a call waits for approval. */
export interface ToolSpec extends ToolDefinition {
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

export interface ToolSource {
  /** Tools offered in a turn of this workspace. */
  list(workspaceId: string, signal: AbortSignal): Promise<ToolSpec[]>;
  /** Extra system-prompt text for this workspace (the skill catalog), or '' for none. */
  systemPrompt(workspaceId: string): Promise<string>;
  /** Runs a spec this source listed. */
  call(workspaceId: string, spec: ToolSpec, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolCallOutcome>;
  /** "Always allow this tool": persist the tool in its server entry's `always_allow`. */
  remember(workspaceId: string, spec: ToolSpec): Promise<void>;
  /** True when a tool server announced a changed tool list since it was last listed (list again before the next request). */
  toolsChanged?(): boolean;
}

/** No tools and no skills: what the engine uses until a source is wired in. */
export const noTools: ToolSource = {
  list: async () => [],
  systemPrompt: async () => '',
  call: async () => ({ ok: false, content: 'No tools are available.', errorCode: 'tool_error' }),
  remember: async () => {},
};

/** Longest tool name the three protocols all accept. */
export const TOOL_NAME_MAX = 64;

/**
 * `base`, or `base` with a `_2`, `_3`… suffix (cut to stay within 64) when `taken` already holds it;
 * the name returned is added to `taken`. Model-facing names must be unique within one request.
 */
export function claimName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) {
    const suffix = `_${n}`;
    name = base.slice(0, TOOL_NAME_MAX - suffix.length) + suffix;
  }
  taken.add(name);
  return name;
}
