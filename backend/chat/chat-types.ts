import type { Block, FailureCode, Usage } from '../llm/llm-types.js';
import type { ChunkLocation } from '../knowledge/knowledge-api.js';

/** A file on a message, stored by reference: the bytes are in the session's attachments (DESIGN 8). */
export interface AttachmentBlock {
  type: 'image' | 'file';
  attachment_id: string;
  mime: string;
  name: string;
}

type ToolResultBlock = Extract<Block, { type: 'tool_result' }>;

/** A tool result as stored: images it returned are attachments, not base64 in the log. */
export type StoredToolResult = Omit<ToolResultBlock, 'media'> & { attachments?: AttachmentBlock[] };

/** A block as events.jsonl holds it: the request blocks, with files as references. */
export type StoredBlock = Exclude<Block, { type: 'media' } | { type: 'tool_result' }> | StoredToolResult | AttachmentBlock;

/** A message as stored in events.jsonl (blocks keep protocol data such as thinking signatures). */
export interface StoredMessage {
  id: string;
  role: 'user' | 'assistant' | 'tool';
  created_at: string;
  /** The message it follows (`null`: the first); absent in logs written before branches (DESIGN 7). */
  parent_id?: string | null;
  blocks: StoredBlock[];
  usage?: Usage;
  model?: string;
  turn_id?: string;
  /** Set on read: the turn that wrote it stopped before the message was complete. */
  interrupted?: boolean;
  /** Set on read on the last message of a turn that failed: its `turn.failed` error. */
  error?: { code: string; message: string };
  /** The numbered sources the reply cites (DESIGN 13/14): web pages and knowledge passages share it. */
  citations?: Citation[];
  /** A user message: the knowledge bases picked for its turn (DESIGN 13), beside the workspace's. */
  knowledge_bases?: string[];
}

/**
 * One numbered source of a reply, told apart by `kind`: `web` (a page the provider's search or the
 * web tools found) or `knowledge` (a passage of a knowledge base, DESIGN 13).
 */
export type Citation =
  | { n: number; kind: 'web'; url: string; title: string }
  | { n: number; kind: 'knowledge'; kb_id: string; source_id: string; chunk_id: string; name: string; location?: ChunkLocation };

export interface CompactionRecord {
  id: string;
  role: 'system';
  kind: 'compaction';
  created_at: string;
  summary: string;
  through_message_id: string;
  tokens_before: number;
  tokens_after: number;
}

/** One line of events.jsonl. */
export type LogRecord =
  | { t: 'message'; m: StoredMessage }
  | { t: 'delta'; id: string; turn_id: string; kind: 'text' | 'thinking'; text: string; parent_id?: string | null }
  | { t: 'compaction'; c: CompactionRecord }
  | {
      t: 'turn_end';
      turn_id: string;
      at: string;
      stop_reason?: string;
      error?: { code: string; message: string };
      usage: Usage;
      model: string;
    };

/** session.json. */
export interface SessionMeta {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  model: string | null;
  message_count: number;
  usage: Usage;
  /** Input tokens (all kinds) the provider measured for the last request: the compression gauge. */
  last_input_tokens?: number;
  /** How many log items that request covered; newer ones are estimated. */
  last_input_items?: number;
  /**
   * Estimated tokens of the `<knowledge>` block that request carried: it is not stored, so the
   * next turn takes it out of the gauge and counts its own block instead.
   */
  last_context_tokens?: number;
  last_compaction_at?: string | null;
  /** True until the user names it: the first message becomes the title. */
  auto_title?: boolean;
  /** The message whose branch is shown (continued to its newest leaf); absent: the newest message's. */
  active_leaf?: string | null;
  /** Per-session overrides of the profile (DESIGN 7); absent or null: the profile decides. */
  model_override?: string | null;
  thinking_override?: ThinkingOverride | null;
  /** DESIGN 14: web search on or off for this session; null: the profile's `web_search.enabled`. */
  web_search_override?: boolean | null;
}

export interface ThinkingOverride {
  enabled: boolean;
  budget?: number;
}

export type SessionSummary = Pick<SessionMeta, 'id' | 'title' | 'created_at' | 'updated_at' | 'model' | 'message_count' | 'usage'> & {
  model_override: string | null;
  thinking_override: ThinkingOverride | null;
  web_search_override: boolean | null;
};

/** Message object of the HTTP API (DESIGN 6). */
export type PublicBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_call'; call_id: string; server: string; tool: string; arguments: Record<string, unknown> }
  | { type: 'tool_result'; call_id: string; ok: boolean; content: string; attachments?: AttachmentBlock[] }
  | AttachmentBlock;

export type MessageView =
  | (Omit<StoredMessage, 'blocks'> & { blocks: PublicBlock[]; siblings?: { index: number; count: number } })
  | Omit<CompactionRecord, 'tokens_before' | 'tokens_after'>;

/** WebSocket frames of a turn (DESIGN 6): every one carries workspace, session, turn and seq. */
export type TurnFrameBody =
  | { type: 'turn.started'; model: string; user_message_id: string; parent_id: string | null }
  | { type: 'turn.delta'; kind: 'text' | 'thinking'; text: string }
  | { type: 'turn.tool_call'; call_id: string; server: string; tool: string; arguments: Record<string, unknown>; needs_approval: boolean }
  | { type: 'turn.tool_result'; call_id: string; ok: boolean; content: string; attachments?: AttachmentBlock[] }
  | { type: 'turn.compacted'; through_message_id: string; tokens_before: number; tokens_after: number }
  | ({ type: 'turn.usage' } & Usage)
  | { type: 'turn.completed'; message_id: string; stop_reason: 'end_turn' | 'max_tokens' | 'max_steps' }
  | { type: 'turn.failed'; error: { code: FailureCode; message: string } };

export type TurnFrame = TurnFrameBody & { workspace_id: string; session_id: string; turn_id: string; seq: number };

export function publicBlock(b: StoredBlock): PublicBlock {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'thinking':
      return { type: 'thinking', text: b.text };
    case 'tool_call':
      return { type: 'tool_call', call_id: b.call_id, server: b.server, tool: b.tool, arguments: b.arguments };
    case 'tool_result':
      return {
        type: 'tool_result',
        call_id: b.call_id,
        ok: b.ok,
        content: b.content,
        ...(b.attachments?.length ? { attachments: b.attachments } : {}),
      };
    case 'image':
    case 'file':
      return { type: b.type, attachment_id: b.attachment_id, mime: b.mime, name: b.name };
    case 'provider_item':
      // The provider's own search, shown like the built-in tool's card.
      if (b.role === 'call')
        return { type: 'tool_call', call_id: b.call_id, server: 'web', tool: 'web_search', arguments: { query: b.query ?? '' } };
      return {
        type: 'tool_result',
        call_id: b.call_id,
        ok: !b.error,
        content: b.error
          ? `The provider's web search failed: ${b.error}`
          : (b.results ?? []).map((r) => `${r.title}\nURL: ${r.url}`).join('\n\n') ||
            'Searched; the pages the reply used are listed under it.',
      };
  }
}

export function publicMessage(m: StoredMessage | CompactionRecord): MessageView {
  if (m.role === 'system') {
    const { tokens_before: _b, tokens_after: _a, ...rest } = m;
    return rest;
  }
  return { ...m, blocks: m.blocks.map(publicBlock) };
}

/** Time-ordered ids: sortable, unique enough for one data directory. */
export function newId(prefix: string): string {
  const time = Date.now().toString(36).padStart(9, '0');
  const rand = Math.floor(Math.random() * 36 ** 6)
    .toString(36)
    .padStart(6, '0');
  return `${prefix}-${time}${rand}`;
}

/** Request blocks as the log keeps them: a model's output and tool results never carry base64 media. */
export function storable(blocks: Block[]): StoredBlock[] {
  return blocks.flatMap((b): StoredBlock[] => {
    if (b.type === 'media') return [];
    if (b.type === 'tool_result') {
      const { media: _media, ...rest } = b;
      return [rest];
    }
    return [b];
  });
}
