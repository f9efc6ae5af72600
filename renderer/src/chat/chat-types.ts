// The chat API and WebSocket frames of DESIGN.md section 6, as the renderer reads them.

import type {
  MessageView,
  PublicBlock,
  SearchHit,
  SessionResponse,
  SessionSummary,
  TurnFrame,
  Usage,
} from '../../../backend/chat/chat-api.js';

// The contract's own types (backend/chat/chat-api.ts), imported type-only.
export type { SearchHit, SessionSummary, TurnFrame, Usage };
export type Block = PublicBlock;
export type StoredMessage = MessageView;
export type CompactionRecord = Extract<MessageView, { role: 'system' }>;
export type ChatMessage = Exclude<MessageView, { role: 'system' }>;
export type SessionDetail = SessionResponse;
export type ActiveTurn = NonNullable<SessionResponse['active_turn']>;
export type TurnError = Extract<TurnFrame, { type: 'turn.failed' }>['error'];

export function isCompaction(m: StoredMessage): m is CompactionRecord {
  return m.role === 'system';
}

/** A live message is a turn frame when its type says so and it carries the frame's keys. */
export function asTurnFrame(m: { type: string }): TurnFrame | null {
  if (!m.type.startsWith('turn.')) return null;
  const f = m as Partial<Pick<TurnFrame, 'session_id' | 'turn_id' | 'seq'>>;
  return typeof f.session_id === 'string' && typeof f.turn_id === 'string' && typeof f.seq === 'number' ? (m as TurnFrame) : null;
}

const enc = encodeURIComponent;

export const chatPath = {
  sessions: (ws: string) => `/api/workspaces/${enc(ws)}/sessions`,
  session: (ws: string, sid: string) => `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}`,
  page: (ws: string, sid: string, before: string, limit: number) =>
    `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}?before=${enc(before)}&limit=${limit}`,
  messages: (ws: string, sid: string) => `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}/messages`,
  cancel: (ws: string, sid: string, tid: string) => `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}/turns/${enc(tid)}/cancel`,
  approvals: (ws: string, sid: string, tid: string) => `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}/turns/${enc(tid)}/approvals`,
  search: (q: string, offset = 0, limit = 20) => `/api/search?q=${enc(q)}&limit=${limit}&offset=${offset}`,
  siblings: (ws: string, sid: string, mid: string) => `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}/messages/${enc(mid)}/siblings`,
  regenerate: (ws: string, sid: string, mid: string) => `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}/messages/${enc(mid)}/regenerate`,
  active: (ws: string, sid: string) => `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}/active`,
  fork: (ws: string, sid: string) => `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}/fork`,
  exportAs: (ws: string, sid: string, format: 'md' | 'json') => `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}/export?format=${format}`,
  importInto: (ws: string, dryRun: boolean) => `/api/workspaces/${enc(ws)}/sessions/import${dryRun ? '?dry_run=1' : ''}`,
  models: '/api/models',
};
