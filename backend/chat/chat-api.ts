// The chat HTTP and WebSocket contract as types (DESIGN 6), for clients: the renderer imports
// these type-only instead of redeclaring them.
import type { Usage } from '../llm/llm-types.js';
import type { MessageView, PublicBlock, SessionSummary, TurnFrame, TurnFrameBody } from './chat-types.js';
import type { SearchHit } from './session-search.js';

export type { MessageView, PublicBlock, SearchHit, SessionSummary, TurnFrame, TurnFrameBody, Usage };

/** GET /api/workspaces/:id/sessions[?limit=N&before=<cursor>] (without limit: the first 200) */
export interface SessionListResponse {
  /** Newest first (updated_at, then id). */
  sessions: SessionSummary[];
  /** Pass as `before` for the next page; null when this page is the last. */
  next: string | null;
}

/** GET /api/workspaces/:id/sessions/:sid[?before=<message id>&limit=N] */
export interface SessionResponse extends SessionSummary {
  /** The newest page (or the page before `before`), oldest first. */
  messages: MessageView[];
  has_more: boolean;
  /**
   * The running turn; `last_seq` matches `messages`: resume with `after_seq: last_seq`.
   * `awaiting_approval`: call ids of tool calls (in `messages`) that wait for the approvals endpoint.
   */
  active_turn: { turn_id: string; last_seq: number; awaiting_approval: string[] } | null;
}

/** POST …/messages → 202 */
export interface SendMessageResponse {
  turn_id: string;
  message_id: string;
}

/** POST …/turns/:tid/approvals */
export interface ApprovalRequest {
  call_id: string;
  decision: 'allow' | 'deny';
  remember?: boolean;
}

/** GET /api/search?q= */
export interface SearchResponse {
  hits: SearchHit[];
}

/** Client → server over /ws. */
export interface ResumeMessage {
  type: 'resume';
  turn_id: string;
  after_seq: number;
}

/** `turn.failed` codes. */
export type TurnFailureCode = Extract<TurnFrame, { type: 'turn.failed' }>['error']['code'];
