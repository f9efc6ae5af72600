import { type LlmRequest, type ProtocolAdapter, type Usage } from '../llm/llm-types.js';
import { callProvider } from '../llm/provider-call.js';
import { newId, type CompactionRecord, type StoredMessage } from './chat-types.js';
import { buildConversation, estimateTokens } from './conversation.js';
import type { Logger } from '../log/logger.js';
import type { ResolvedModel } from './model-resolver.js';
import type { LogAppender } from './session-log.js';
import type { SessionStore } from './session-store.js';
import type { TurnChannel } from './turn-channel.js';

type Item = StoredMessage | CompactionRecord;

/** What a compaction needs of the turn it runs in. */
export interface CompactionTurn {
  workspaceId: string;
  sessionId: string;
  model: ResolvedModel;
  sessions: Pick<SessionStore, 'get' | 'update'>;
  appender: Pick<LogAppender, 'append'>;
  channel: Pick<TurnChannel, 'emit'>;
  logger: Pick<Logger, 'info'>;
  signal: AbortSignal;
  deadline: number;
}

const SUMMARY_SYSTEM =
  'You write the summary of a conversation so that it can continue without the original messages. ' +
  'Keep facts, decisions, names, numbers, file paths, tool results that still matter, open questions and what the user asked for. ' +
  'Write plain prose and lists, no preamble.';
const RESULT_CHARS = 2000;

/** A plain transcript: protocol-neutral, so the summary request needs no tool definitions. */
export function transcript(items: Item[]): string {
  const lines: string[] = [];
  for (const m of buildConversation(items)) {
    for (const b of m.blocks) {
      if (b.type === 'text') lines.push(`${m.role === 'assistant' ? 'Assistant' : 'User'}: ${b.text}`);
      else if (b.type === 'tool_call') lines.push(`Assistant called tool ${b.name ?? b.tool} with ${JSON.stringify(b.arguments)}`);
      else if (b.type === 'tool_result') lines.push(`Tool result${b.ok ? '' : ' (error)'}: ${b.content.slice(0, RESULT_CHARS)}`);
    }
  }
  return lines.join('\n\n');
}

/** Index of the first item after the last compaction's prefix. */
function liveStart(items: Item[]): number {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.role === 'system') return items.findIndex((x) => x.id === item.through_message_id) + 1;
  }
  return 0;
}

/**
 * Compression (DESIGN 6): once the measured input (plus an estimate for newer messages) reaches
 * threshold_percent of the context window and the cooldown has passed, the older rounds become a
 * summary written by the same model. The last two rounds (more while they fit a quarter of the
 * window) stay verbatim; rounds start at user messages, so a tool call never loses its result.
 * The turn's `<knowledge>` block (DESIGN 13) is part of the request, so it is part of the gauge:
 * `contextTokens` is this turn's, and the last request's block is taken out of its measure.
 */
export async function maybeCompact(
  ctx: CompactionTurn,
  adapter: ProtocolAdapter,
  items: Item[],
  /** Position of items[0] in the whole session (a turn reads only the newest part of a long one). */
  base = 0,
  /** Estimated tokens of the context block this turn's requests carry ahead of the user message. */
  contextTokens = 0,
): Promise<{ record: CompactionRecord; usage: Usage } | null> {
  const { model } = ctx;
  const cfg = model.profile.compression;
  if (!cfg.enabled) return null;
  const meta = await ctx.sessions.get(ctx.workspaceId, ctx.sessionId);
  if (!meta) return null;
  if (meta.last_compaction_at && Date.now() - Date.parse(meta.last_compaction_at) < cfg.cooldown_seconds * 1000) return null;
  const measured = meta.last_input_tokens === undefined ? 0 : Math.max(0, meta.last_input_tokens - (meta.last_context_tokens ?? 0));
  const newer = meta.last_input_tokens === undefined ? items : items.slice(Math.max(0, (meta.last_input_items ?? 0) - base));
  const gauge = measured + estimateTokens(buildConversation(newer)) + contextTokens;
  if (gauge < (model.contextWindow * cfg.threshold_percent) / 100) return null;

  const from = liveStart(items);
  const roundStarts: number[] = [];
  for (let i = from; i < items.length; i++) if (items[i].role === 'user') roundStarts.push(i);
  if (roundStarts.length <= 2) return null;
  let keepFrom = roundStarts[roundStarts.length - 2];
  for (let r = roundStarts.length - 3; r >= 1; r--) {
    if (estimateTokens(buildConversation(items.slice(roundStarts[r]))) > model.contextWindow / 4) break;
    keepFrom = roundStarts[r];
  }
  const older = items.slice(0, keepFrom);
  const through = [...older].reverse().find((i) => i.role !== 'system');
  if (!through || keepFrom <= from) return null;

  const req: LlmRequest = {
    model: model.modelId,
    system: SUMMARY_SYSTEM,
    messages: [{ role: 'user', blocks: [{ type: 'text', text: `Summarize this conversation:\n\n${transcript(older)}` }] }],
    tools: [],
    maxTokens: model.protocol === 'native' ? Math.min(model.maxTokens, 4096) : 0,
    cache: false,
    cacheKey: ctx.sessionId,
  };
  let summary: string;
  let usage: Usage;
  try {
    const result = await callProvider(adapter, req, model.endpoint, { signal: ctx.signal, deadline: ctx.deadline, emit: () => undefined });
    summary = result.blocks
      .flatMap((b) => (b.type === 'text' ? [b.text] : []))
      .join('\n')
      .trim();
    usage = result.usage;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.logger.info(`chat: session ${ctx.sessionId}: compaction skipped: ${(err as Error).message}`);
    return null;
  }
  if (!summary) return null;
  const record: CompactionRecord = {
    id: newId('c'),
    role: 'system',
    kind: 'compaction',
    created_at: new Date().toISOString(),
    summary,
    through_message_id: through.id,
    tokens_before: gauge,
    tokens_after: 0,
  };
  record.tokens_after = estimateTokens(buildConversation([...items, record])) + contextTokens;
  ctx.appender.append({ t: 'compaction', c: record });
  await ctx.sessions.update(ctx.workspaceId, ctx.sessionId, (m) => {
    m.last_compaction_at = record.created_at;
    m.last_input_tokens = undefined;
    m.last_input_items = undefined;
    m.last_context_tokens = undefined;
  });
  ctx.channel.emit({
    type: 'turn.compacted',
    through_message_id: record.through_message_id,
    tokens_before: gauge,
    tokens_after: record.tokens_after,
  });
  return { record, usage };
}
