// The chat API and WebSocket frames of DESIGN.md section 6, as the renderer reads them.

export type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_call'; call_id: string; server: string; tool: string; arguments: Record<string, unknown> }
  | { type: 'tool_result'; call_id: string; ok: boolean; content: string };

export interface Usage {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning: number;
}

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant' | 'tool';
  created_at: string;
  blocks: Block[];
  usage?: Usage;
  model?: string;
}

export interface CompactionRecord {
  id?: string;
  role: 'system';
  kind: 'compaction';
  summary: string;
  through_message_id: string;
  created_at?: string;
}

export type StoredMessage = ChatMessage | CompactionRecord;

export function isCompaction(m: StoredMessage): m is CompactionRecord {
  return m.role === 'system';
}

export interface SessionSummary {
  id: string;
  title: string | null;
  created_at: string;
  updated_at: string;
  model: string | null;
  message_count: number;
  usage?: Partial<Usage>;
}

export interface ActiveTurn {
  turn_id: string;
  last_seq: number;
}

export interface SessionDetail extends SessionSummary {
  messages: StoredMessage[];
  active_turn: ActiveTurn | null;
}

export interface SearchHit {
  workspace_id: string;
  session_id: string;
  message_id: string;
  snippet: string;
}

export interface TurnError {
  code: string;
  message: string;
}

interface FrameBase {
  workspace_id: string;
  session_id: string;
  turn_id: string;
  seq: number;
}

export type TurnFrame = FrameBase &
  (
    | { type: 'turn.started'; model: string }
    | { type: 'turn.delta'; kind: 'text' | 'thinking'; text: string }
    | {
        type: 'turn.tool_call';
        call_id: string;
        server: string;
        tool: string;
        arguments: Record<string, unknown>;
        needs_approval: boolean;
      }
    | { type: 'turn.tool_result'; call_id: string; ok: boolean; content: string }
    | { type: 'turn.compacted'; through_message_id: string; tokens_before: number; tokens_after: number }
    | ({ type: 'turn.usage' } & Usage)
    | { type: 'turn.completed'; message_id: string; stop_reason: string }
    | { type: 'turn.failed'; error: TurnError }
  );

/** A live message is a turn frame when its type says so and it carries the frame's keys. */
export function asTurnFrame(m: { type: string }): TurnFrame | null {
  if (!m.type.startsWith('turn.')) return null;
  const f = m as Partial<FrameBase>;
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
  search: (q: string) => `/api/search?q=${enc(q)}`,
};
