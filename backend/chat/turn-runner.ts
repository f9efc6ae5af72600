import type { Logger } from '../log/logger.js';
import { loadAdapter } from '../llm/adapters.js';
import {
  addUsage,
  ProviderError,
  zeroUsage,
  type Block,
  type FailureCode,
  type LlmRequest,
  type LlmResult,
  type Usage,
  type WebCitation,
} from '../llm/llm-types.js';
import { callProvider, scrub } from '../llm/provider-call.js';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import type { ApprovalBox } from './approvals.js';
import { AttachmentResolver } from './attachment-resolver.js';
import { newId, storable, type CompactionRecord, type StoredBlock, type StoredMessage } from './chat-types.js';
import type { WebTurnTools } from '../web/web-tools.js';
import { combineToolSources } from '../tools/combined-tools.js';
import { SourceNumbers } from '../tools/source-numbers.js';
import { prepareKnowledge, replyCitations, withContextBlock, type KnowledgeInput } from './knowledge-turn.js';
import { maybeCompact } from './compaction.js';
import { buildConversation, completedRounds, estimateTokens } from './conversation.js';
import { languageLine, type ResolvedModel } from './model-resolver.js';
import type { LogAppender } from './session-log.js';
import type { SessionStore } from './session-store.js';
import type { ToolSource } from '../tools/tool-source.js';
import { ownCallId, runTools, toolStep, withSpec } from './tool-round.js';
import type { TurnChannel } from './turn-channel.js';

export const BASE_SYSTEM_PROMPT = 'You are a helpful assistant.';

/** One turn's inputs; compaction and each tool round take the parts they need. */
export interface TurnContext {
  workspaceId: string;
  sessionId: string;
  turnId: string;
  /** The user message the turn answers (stored before the turn starts). */
  userMessage: { id: string; parent_id: string | null };
  model: ResolvedModel;
  channel: TurnChannel;
  appender: LogAppender;
  sessions: SessionStore;
  tools: ToolSource;
  attachments: AttachmentStore;
  approvals: ApprovalBox;
  logger: Logger;
  signal: AbortSignal;
  deadline: number;
  /** DESIGN 14: web search for this turn (the provider's own tool, or the built-in tools), or null when off. */
  web: WebTurn | null;
  /** DESIGN 13: the knowledge bases a turn may draw on, or null when the backend has none. */
  knowledge?: KnowledgeInput | null;
  /** The reply's numbering of sources, shared by the web tools and the knowledge passages. */
  numbers?: SourceNumbers;
}

export interface WebTurn {
  /** The protocol's own search tool, at most `maxUses` searches per request. */
  native: { maxUses: number } | null;
  /** The built-in web_search / web_fetch tools. */
  tools: WebTurnTools | null;
}

/** DESIGN 7: the profile's system_prompt (else the base prompt), the workspace's instructions, the language line, the skill catalog. */
export function systemPrompt(model: ResolvedModel, catalog: string): string {
  const base = model.profile.system_prompt.trim() ? model.profile.system_prompt : BASE_SYSTEM_PROMPT;
  return [base, model.instructions.trim(), languageLine(model.profile.language), catalog].filter(Boolean).join('\n\n');
}

type StopKind = 'end_turn' | 'max_tokens' | 'max_steps';

/**
 * Log bytes a turn reads for its history: twice what the context window holds at 4 characters a
 * token, so a turn in a 100,000-message session reads about what it can send, not the whole log.
 */
export function historyBudget(contextWindow: number): number {
  return Math.min(Math.max(contextWindow * 8, 256 * 1024), 32 * 1024 * 1024);
}

/** The turn's failure when events.jsonl could not be written (a full disk, a read-only folder). */
export function storageFailure(err: Error): { code: FailureCode; message: string } {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code === 'ENOSPC' ? 'the disk is full (ENOSPC)' : `${code ?? err.message}`;
  return {
    code: 'storage_error',
    message: `The reply could not be stored: ${why}. Free some space and send the message again; the history stored so far is intact.`,
  };
}

function failureOf(err: unknown, signal: AbortSignal, apiKey: string, appender: LogAppender): { code: FailureCode; message: string } {
  if (signal.aborted && signal.reason === 'storage' && appender.failure) return storageFailure(appender.failure);
  if (signal.aborted) {
    if (signal.reason === 'timeout') return { code: 'timeout', message: 'The turn ran longer than timeout_seconds.' };
    if (signal.reason === 'shutdown') return { code: 'cancelled', message: 'The turn was stopped: the backend was shutting down.' };
    return { code: 'cancelled', message: 'The turn was cancelled.' };
  }
  if (err instanceof ProviderError) return { code: err.code, message: scrub(err.message, apiKey) };
  return { code: 'provider_error', message: scrub(`Internal error: ${(err as Error)?.message ?? String(err)}`, apiKey) };
}

/** Runs one turn to its end; every outcome ends with a turn_end record and a final frame. */
export async function runTurn(turn: TurnContext): Promise<void> {
  const ctx: TurnContext = { ...turn };
  const numbers = turn.numbers ?? new SourceNumbers();
  const { channel, appender, model } = ctx;
  const providerCitations = new Map<string, WebCitation>();
  let usage: Usage = zeroUsage();
  let lastInput: number | undefined;
  let itemCount = 0;
  let contextTokens = 0;
  /** What the next stored message follows: the branch grows from the user message. */
  let parentId = ctx.userMessage.id;
  let storedReply = false;
  let end: { stop: StopKind } | { error: { code: FailureCode; message: string } };
  channel.emit({ type: 'turn.started', model: model.ref, user_message_id: ctx.userMessage.id, parent_id: ctx.userMessage.parent_id });
  const store = (message: StoredMessage, items: (StoredMessage | CompactionRecord)[]) => {
    message.parent_id = parentId;
    parentId = message.id;
    appender.append({ t: 'message', m: message });
    items.push(message);
    if (message.role === 'assistant') storedReply = true;
  };
  let turnItems: (StoredMessage | CompactionRecord)[] = [];
  try {
    // Only the branch that ends at the user message: other branches never reach the model.
    const history = await ctx.sessions.history(ctx.workspaceId, ctx.sessionId, ctx.userMessage.id, historyBudget(model.contextWindow));
    turnItems = history.items;
    /** Position of the first history item read on the branch. */
    const base = history.base;
    const adapter = await loadAdapter(model.protocol);
    const knowledge = await toolStep(ctx.signal, 'reading the knowledge bases', () =>
      prepareKnowledge(ctx.knowledge ?? null, turnItems, ctx.userMessage.id, model, numbers, ctx.signal),
    );
    // Known before compaction: the block goes out with the history, so it counts towards the window.
    contextTokens = knowledge?.contextBlock ? estimateTokens(knowledge.contextBlock) : 0;
    const compaction = await maybeCompact(ctx, adapter, turnItems, base, contextTokens);
    if (compaction) {
      turnItems.push(compaction.record);
      usage = addUsage(usage, compaction.usage);
    }
    // Built-in tools come first: their names stay web_search / knowledge_search … whatever a tool server offers.
    const builtIn: ToolSource[] = [];
    if (turn.web?.tools) builtIn.push(turn.web.tools);
    if (knowledge?.mode === 'tools') builtIn.push(knowledge);
    if (builtIn.length > 0) ctx.tools = combineToolSources(...builtIn, turn.tools);
    const listTools = () =>
      model.offerTools ? toolStep(ctx.signal, 'listing the tools', () => ctx.tools.list(ctx.workspaceId, ctx.signal)) : [];
    let specs = await listTools();
    const catalog = await toolStep(ctx.signal, 'reading the skill catalog', () => ctx.tools.systemPrompt(ctx.workspaceId));
    const system = systemPrompt(model, catalog);
    const userAt = turnItems.length - 1;
    const cache = model.profile.cache.enabled && completedRounds(turnItems.slice(0, userAt)) >= model.profile.cache.cache_threshold;
    const files = new AttachmentResolver(ctx.attachments, ctx.workspaceId, ctx.sessionId, model.protocol, !!model.entry?.supports_vision);
    let rounds = 0;
    for (;;) {
      // A server may have changed its tools during the last round (notifications/tools/list_changed).
      if (rounds > 0 && ctx.tools.toolsChanged?.()) specs = await listTools();
      await files.prepare(turnItems);
      const req: LlmRequest = {
        model: model.modelId,
        system,
        messages: withContextBlock(buildConversation(turnItems, files), knowledge?.contextBlock ?? ''),
        tools: specs,
        // compat/responsemode: a limit only where the model entry names one (their APIs default sensibly).
        maxTokens: model.protocol === 'native' ? model.maxTokens : (model.entry?.max_output_tokens ?? 0),
        thinkingBudget: model.thinkingBudget,
        cache,
        cacheKey: ctx.sessionId,
        ...(ctx.web?.native ? { webSearch: ctx.web.native } : {}),
      };
      const messageId = newId('m');
      const partial: StoredBlock[] = [];
      let result: LlmResult;
      try {
        result = await callProvider(adapter, req, model.endpoint, {
          signal: ctx.signal,
          deadline: ctx.deadline,
          emit: (e) => {
            if (e.type !== 'text' && e.type !== 'thinking') return;
            channel.emit({ type: 'turn.delta', kind: e.type, text: e.text });
            appender.append({ t: 'delta', id: messageId, turn_id: ctx.turnId, kind: e.type, text: e.text, parent_id: parentId });
            const last = partial[partial.length - 1];
            if (last && last.type === e.type) last.text += e.text;
            else partial.push({ type: e.type, text: e.text });
          },
          onRetry: (attempt, wait, reason) =>
            ctx.logger.info(`chat: turn ${ctx.turnId}: retry ${attempt} in ${wait}s (${scrub(reason, model.endpoint.apiKey)})`),
        });
      } catch (err) {
        // Stored even when nothing streamed: a failed reply is one the user can regenerate (DESIGN 7).
        const message: StoredMessage = {
          id: messageId,
          role: 'assistant',
          created_at: new Date().toISOString(),
          blocks: partial,
          model: model.ref,
          turn_id: ctx.turnId,
          interrupted: true,
        };
        store(message, turnItems);
        throw err;
      }
      usage = addUsage(usage, result.usage);
      lastInput = result.usage.input + result.usage.cache_read + result.usage.cache_write;
      itemCount = base + turnItems.length;
      const blocks = result.blocks.map((b) => (b.type === 'tool_call' ? withSpec(ownCallId(b), specs) : b));
      for (const c of result.citations ?? []) if (!providerCitations.has(c.url)) providerCitations.set(c.url, c);
      const calls = blocks.filter((b): b is Extract<Block, { type: 'tool_call' }> => b.type === 'tool_call');
      const final = result.stopReason !== 'pause_turn' && (calls.length === 0 || result.stopReason !== 'tool_use');
      const text = blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
      const citations =
        final && (ctx.web || knowledge) ? await replyCitations(providerCitations, ctx.web?.tools ?? null, knowledge, numbers, text) : [];
      const message: StoredMessage = {
        id: messageId,
        role: 'assistant',
        created_at: new Date().toISOString(),
        blocks: storable(blocks),
        usage: result.usage,
        model: model.ref,
        turn_id: ctx.turnId,
        ...(citations.length > 0 ? { citations } : {}),
      };
      store(message, turnItems);
      if (result.stopReason === 'pause_turn') {
        // A long server-tool turn paused: the reply goes back as it is and the provider continues.
        if (rounds >= model.profile.tools.max_steps) {
          end = { stop: 'max_steps' };
          break;
        }
        rounds += 1;
        continue;
      }
      if (calls.length === 0 || result.stopReason !== 'tool_use') {
        end = { stop: result.stopReason === 'max_tokens' ? 'max_tokens' : 'end_turn' };
        break;
      }
      if (rounds >= model.profile.tools.max_steps) {
        end = { stop: 'max_steps' };
        break;
      }
      rounds += 1;
      const results = await runTools(ctx, calls, specs);
      const toolMessage: StoredMessage = {
        id: newId('m'),
        role: 'tool',
        created_at: new Date().toISOString(),
        blocks: results,
        turn_id: ctx.turnId,
      };
      store(toolMessage, turnItems);
    }
  } catch (err) {
    end = { error: failureOf(err, ctx.signal, model.endpoint.apiKey, appender) };
    ctx.logger.info(`chat: turn ${ctx.turnId} failed: ${end.error.code}: ${end.error.message}`);
    if (!storedReply) {
      // Failed before the model answered (tools, compaction): still a reply to regenerate.
      const message: StoredMessage = {
        id: newId('m'),
        role: 'assistant',
        created_at: new Date().toISOString(),
        blocks: [],
        model: model.ref,
        turn_id: ctx.turnId,
      };
      store(message, turnItems);
    }
  }
  await finish(ctx, { usage, lastMessageId: parentId, lastInput, itemCount, contextTokens }, end);
}

async function finish(
  ctx: TurnContext,
  state: { usage: Usage; lastMessageId: string; lastInput?: number; itemCount: number; contextTokens: number },
  end: { stop: StopKind } | { error: { code: FailureCode; message: string } },
): Promise<void> {
  const { channel, appender, model } = ctx;
  appender.append({
    t: 'turn_end',
    turn_id: ctx.turnId,
    at: new Date().toISOString(),
    ...('stop' in end ? { stop_reason: end.stop } : { error: end.error }),
    usage: state.usage,
    model: model.ref,
  });
  try {
    await appender.sync();
  } catch (err) {
    ctx.logger.error(`chat: session ${ctx.sessionId}: events.jsonl could not be written: ${(err as Error).message}`);
    // Whatever the provider said, the client must not believe the reply was kept.
    end = { error: storageFailure(appender.failure ?? (err as Error)) };
  }
  await appender.close();
  try {
    // The index reads only what this turn appended.
    const count = (await ctx.sessions.index(ctx.workspaceId, ctx.sessionId)).messageCount;
    await ctx.sessions.update(ctx.workspaceId, ctx.sessionId, (meta) => {
      meta.updated_at = new Date().toISOString();
      // The turn's last message ends the shown branch, unless the user switched away meanwhile.
      if (meta.active_leaf === ctx.userMessage.id && state.lastMessageId) meta.active_leaf = state.lastMessageId;
      meta.model = model.ref;
      meta.message_count = count;
      meta.usage = addUsage({ ...zeroUsage(), ...meta.usage }, state.usage);
      if (state.lastInput !== undefined) {
        meta.last_input_tokens = state.lastInput;
        meta.last_input_items = state.itemCount;
        meta.last_context_tokens = state.contextTokens || undefined;
      }
    });
  } catch (err) {
    ctx.logger.error(`chat: session ${ctx.sessionId}: session.json could not be updated: ${(err as Error).message}`);
  }
  channel.emit({ type: 'turn.usage', ...state.usage });
  if ('stop' in end) channel.emit({ type: 'turn.completed', message_id: state.lastMessageId, stop_reason: end.stop });
  else channel.emit({ type: 'turn.failed', error: end.error });
}
