// Types only: what the tool-server status, prompt and resource endpoints answer. The renderer
// imports them (type-only); nothing here may pull runtime code.

export type ServerState = 'stopped' | 'starting' | 'ready' | 'failed';

/** One server as `GET /api/mcp/status` reports it. */
export interface ServerStatus {
  name: string;
  source: 'global' | 'workspace' | 'cli';
  transport: 'stdio' | 'http' | 'sse' | 'invalid';
  state: ServerState;
  disabled: boolean;
  approval: 'auto' | 'ask';
  always_allow: string[];
  tools: { name: string; description: string }[];
  error: string | null;
  /** Process id of a running stdio server (its process group leader). */
  pid: number | null;
  /** A remote server that wants OAuth sign-in (DESIGN 9); `authorize_url` opens the sign-in page. */
  auth_required: boolean;
  authorize_url: string | null;
  /** Tokens are stored for this server ("Sign out" forgets them). */
  signed_in: boolean;
}

/** `GET /api/workspaces/:id/mcp/prompts`. */
export interface PromptInfo {
  server: string;
  name: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
}

/** `POST …/mcp/prompts/get` → `{messages}`: the rendered prompt, as text. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  text: string;
}

/** `GET /api/workspaces/:id/mcp/resources`. */
export interface ResourceInfo {
  server: string;
  uri: string;
  name: string;
  mime: string | null;
}

/** A server that could not answer a listing: named, with the reason in words. */
export interface FeatureProblem {
  server: string;
  error: string;
}
