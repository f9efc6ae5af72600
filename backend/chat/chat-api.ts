// The chat HTTP and WebSocket contract as types (DESIGN 6), for clients: the renderer imports
// these type-only instead of redeclaring them.
import { z } from 'zod';
import type { Usage } from '../llm/llm-types.js';
import type { Citation, MessageView, PublicBlock, SessionSummary, TurnFrame, TurnFrameBody } from './chat-types.js';

export type { Citation, MessageView, PublicBlock, SessionSummary, TurnFrame, TurnFrameBody, Usage };

/** One hit of GET /api/search. */
export interface SearchHit {
  workspace_id: string;
  session_id: string;
  message_id: string;
  snippet: string;
}

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
  /** Best first (bm25 rank); `?limit=N` (default 20, at most 100), `&offset=N`, `&workspace_id=` to filter. */
  hits: SearchHit[];
  /** More hits after these: ask again with offset + limit. */
  has_more: boolean;
  /** The index is still catching up with the logs (after a rebuild): hits may be missing. */
  indexing: boolean;
  /** The distinct terms searched: the first 16 of the query (one- and two-letter ones as whole words). */
  terms: string[];
  /** Distinct terms past the first 16, ignored (0 when the whole query was searched). */
  terms_dropped: number;
}

/**
 * Client → server over /ws: the frames of a turn after `after_seq` that this connection missed.
 * A missing or malformed field reads as "" / 0 (the server then answers that there is no such turn).
 */
export const ResumeMessageSchema = z.object({
  type: z.literal('resume'),
  turn_id: z.string().catch(''),
  after_seq: z.number().catch(0),
});
export type ResumeMessage = z.output<typeof ResumeMessageSchema>;

/** `turn.failed` codes. */
export type TurnFailureCode = Extract<TurnFrame, { type: 'turn.failed' }>['error']['code'];
