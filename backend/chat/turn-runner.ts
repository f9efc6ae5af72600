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
} from '../llm/llm-types.js';
import { callProvider, scrub } from '../llm/provider-call.js';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import type { ApprovalBox } from './approvals.js';
import { AttachmentResolver } from './attachment-resolver.js';
import { newId, storable, type StoredBlock, type StoredMessage } from './chat-types.js';
import { maybeCompact } from './compaction.js';
import { buildConversation, completedRounds } from './conversation.js';
import { languageLine, type ResolvedModel } from './model-resolver.js';
import type { LogAppender } from './session-log.js';
import type { SessionStore } from './session-store.js';
import type { ToolSource } from '../tools/tool-source.js';
import { runTools, toolStep, withSpec } from './tool-round.js';
import type { TurnChannel } from './turn-channel.js';

export const BASE_SYSTEM_PROMPT = 'You are a helpful assistant.';

/** One turn's inputs; compaction and each tool round take the parts they need. */
export interface TurnContext {
  workspaceId: string;
  sessionId: string;
  turnId: string;
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
}

type StopKind = 'end_turn' | 'max_tokens' | 'max_steps';

function failureOf(err: unknown, signal: AbortSignal, apiKey: string): { code: FailureCode; message: string } {
  if (signal.aborted) {
    return signal.reason === 'timeout'
      ? { code: 'timeout', message: 'The turn ran longer than timeout_seconds.' }
      : { code: 'cancelled', message: 'The turn was cancelled.' };
  }
  if (err instanceof ProviderError) return { code: err.code, message: scrub(err.message, apiKey) };
  return { code: 'provider_error', message: scrub(`Internal error: ${(err as Error)?.message ?? String(err)}`, apiKey) };
}

/** Runs one turn to its end; every outcome ends with a turn_end record and a final frame. */
export async function runTurn(ctx: TurnContext): Promise<void> {
  const { channel, appender, model } = ctx;
  let usage: Usage = zeroUsage();
  let lastMessageId = '';
  let lastInput: number | undefined;
  let itemCount = 0;
  /** The session's items as this turn extends them (counted at the end instead of re-reading). */
  let items: { role: string }[] | null = null;
  let end: { stop: StopKind } | { error: { code: FailureCode; message: string } };
  channel.emit({ type: 'turn.started', model: model.ref });
  try {
    const log = await ctx.sessions.readLog(ctx.workspaceId, ctx.sessionId);
    const turnItems = log.items;
    items = turnItems;
    const adapter = await loadAdapter(model.protocol);
    const compaction = await maybeCompact(ctx, adapter, turnItems);
    if (compaction) {
      turnItems.push(compaction.record);
      usage = addUsage(usage, compaction.usage);
    }
    const specs = model.offerTools
      ? await toolStep(ctx.signal, 'listing the tools', () => ctx.tools.list(ctx.workspaceId, ctx.signal))
      : [];
    const catalog = await toolStep(ctx.signal, 'reading the skill catalog', () => ctx.tools.systemPrompt(ctx.workspaceId));
    const system = [BASE_SYSTEM_PROMPT, languageLine(model.profile.language), catalog].filter(Boolean).join('\n\n');
    const userAt = turnItems.length - 1;
    const cache = model.profile.cache.enabled && completedRounds(turnItems.slice(0, userAt)) >= model.profile.cache.cache_threshold;
    const files = new AttachmentResolver(ctx.attachments, ctx.workspaceId, ctx.sessionId, model.protocol, !!model.entry?.supports_vision);
    let rounds = 0;
    for (;;) {
      await files.prepare(turnItems);
      const req: LlmRequest = {
        model: model.modelId,
        system,
        messages: buildConversation(turnItems, files),
        tools: specs,
        // compat/responsemode: a limit only where the model entry names one (their APIs default sensibly).
        maxTokens: model.protocol === 'native' ? model.maxTokens : (model.entry?.max_output_tokens ?? 0),
        thinkingBudget: model.thinkingBudget,
        cache,
        cacheKey: ctx.sessionId,
      };
      const messageId = newId('m');
      lastMessageId = messageId;
      const partial: StoredBlock[] = [];
      let result: LlmResult;
      try {
        result = await callProvider(adapter, req, model.endpoint, {
          signal: ctx.signal,
          deadline: ctx.deadline,
          emit: (e) => {
            if (e.type !== 'text' && e.type !== 'thinking') return;
            channel.emit({ type: 'turn.delta', kind: e.type, text: e.text });
            appender.append({ t: 'delta', id: messageId, turn_id: ctx.turnId, kind: e.type, text: e.text });
            const last = partial[partial.length - 1];
            if (last && last.type === e.type) last.text += e.text;
            else partial.push({ type: e.type, text: e.text });
          },
          onRetry: (attempt, wait, reason) =>
            ctx.logger.info(`chat: turn ${ctx.turnId}: retry ${attempt} in ${wait}s (${scrub(reason, model.endpoint.apiKey)})`),
        });
      } catch (err) {
        if (partial.length > 0) {
          const message: StoredMessage = {
            id: messageId,
            role: 'assistant',
            created_at: new Date().toISOString(),
            blocks: partial,
            model: model.ref,
            turn_id: ctx.turnId,
            interrupted: true,
          };
          appender.append({ t: 'message', m: message });
          turnItems.push(message);
        }
        throw err;
      }
      usage = addUsage(usage, result.usage);
      lastInput = result.usage.input + result.usage.cache_read + result.usage.cache_write;
      itemCount = turnItems.length;
      const blocks = result.blocks.map((b) => (b.type === 'tool_call' ? withSpec(b, specs) : b));
      const message: StoredMessage = {
        id: messageId,
        role: 'assistant',
        created_at: new Date().toISOString(),
        blocks: storable(blocks),
        usage: result.usage,
        model: model.ref,
        turn_id: ctx.turnId,
      };
      appender.append({ t: 'message', m: message });
      turnItems.push(message);
      const calls = blocks.filter((b): b is Extract<Block, { type: 'tool_call' }> => b.type === 'tool_call');
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
      appender.append({ t: 'message', m: toolMessage });
      turnItems.push(toolMessage);
    }
  } catch (err) {
    end = { error: failureOf(err, ctx.signal, model.endpoint.apiKey) };
    ctx.logger.info(`chat: turn ${ctx.turnId} failed: ${end.error.code}: ${end.error.message}`);
  }
  const messageCount = items ? items.filter((i) => i.role !== 'system').length : undefined;
  await finish(ctx, { usage, lastMessageId, lastInput, itemCount, messageCount }, end);
}

async function finish(
  ctx: TurnContext,
  state: { usage: Usage; lastMessageId: string; lastInput?: number; itemCount: number; messageCount?: number },
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
  }
  await appender.close();
  try {
    const count =
      state.messageCount ?? (await ctx.sessions.readLog(ctx.workspaceId, ctx.sessionId)).items.filter((i) => i.role !== 'system').length;
    await ctx.sessions.update(ctx.workspaceId, ctx.sessionId, (meta) => {
      meta.updated_at = new Date().toISOString();
      meta.model = model.ref;
      meta.message_count = count;
      meta.usage = addUsage({ ...zeroUsage(), ...meta.usage }, state.usage);
      if (state.lastInput !== undefined) {
        meta.last_input_tokens = state.lastInput;
        meta.last_input_items = state.itemCount;
      }
    });
  } catch (err) {
    ctx.logger.error(`chat: session ${ctx.sessionId}: session.json could not be updated: ${(err as Error).message}`);
  }
  channel.emit({ type: 'turn.usage', ...state.usage });
  if ('stop' in end) channel.emit({ type: 'turn.completed', message_id: state.lastMessageId, stop_reason: end.stop });
  else channel.emit({ type: 'turn.failed', error: end.error });
}
