// The contract of DESIGN 7 (branches, models, export and import) as types, for clients: the
// renderer imports these type-only.
import type { MessageView, ThinkingOverride } from './chat-types.js';

export type { ThinkingOverride };

/** One entry of `GET /api/models` (DESIGN 7): every model of every provider, for pickers. */
export interface ModelInfo {
  /** `<providerId>:<modelId>` */
  id: string;
  provider: string;
  provider_name: string;
  name: string;
  /** DESIGN 13: `chat` models go in chat pickers; `embedding` and `rerank` models serve knowledge bases. */
  kind: 'chat' | 'embedding' | 'rerank';
  context_window: number;
  max_output_tokens?: number;
  supports_thinking: boolean;
  supports_tools: boolean;
  supports_vision: boolean;
  enabled: boolean;
}

/** GET /api/models */
export interface ModelsResponse {
  models: ModelInfo[];
}

/** PATCH /api/workspaces/:id/sessions/:sid (any subset; null clears an override). */
export interface SessionPatch {
  title?: string;
  model?: string | null;
  thinking?: ThinkingOverride | null;
  /** DESIGN 14: web search on or off for this session; null: the profile decides. */
  web_search?: boolean | null;
}

/** POST …/messages: `parent_id` defaults to the shown branch's leaf; an earlier id starts a branch there. */
export interface SendMessageRequest {
  content: string;
  parent_id?: string | null;
  /** Ids of files uploaded to this session (DESIGN 8), at most 10. */
  attachments?: string[];
  /** MCP resources read now and stored with the message (DESIGN 9). */
  resources?: { server: string; uri: string }[];
  /** DESIGN 13: knowledge bases for this message's turn (each must exist), beside the workspace's; a regenerate reuses them. */
  knowledge_bases?: string[];
}

/** GET …/messages/:mid/siblings */
export interface SiblingsResponse {
  messages: MessageView[];
}

/** POST …/messages/:mid/regenerate {model?} → 202 */
export interface RegenerateResponse {
  turn_id: string;
  /** The user message the new reply answers. */
  user_message_id: string;
}

/** POST /api/workspaces/:id/sessions/import (`?dry_run=1`: the preview, nothing written). */
export interface ImportResponse {
  format: 'service-session' | 'chatgpt';
  sessions: { id: string; title: string; message_count: number; branches: number }[];
  skipped: { title: string; reason: string }[];
  dry_run: boolean;
}
