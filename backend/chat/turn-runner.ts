import type { Logger } from '../log/logger.js';
import { INVALID_ARGS } from '../llm/adapter-kit.js';
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
import type { ApprovalBox } from './approvals.js';
import { newId, type CompactionRecord, type StoredMessage } from './chat-types.js';
import { maybeCompact } from './compaction.js';
import { buildConversation, completedRounds } from './conversation.js';
import { languageLine, type ResolvedModel } from './model-resolver.js';
import type { LogAppender } from './session-log.js';
import type { SessionStore } from './session-store.js';
import type { ToolCallOutcome, ToolProvider, ToolSpec } from './tool-provider.js';
import type { TurnChannel } from './turn-channel.js';

export const BASE_SYSTEM_PROMPT = 'You are a helpful assistant.';
/** DESIGN 6: a tool result is cut to 100 KB (the provider cuts; this guards against one that does not). */
export const MAX_RESULT_BYTES = 100 * 1024;

function capResult(text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= MAX_RESULT_BYTES) return text;
  const cut = Buffer.from(text, 'utf8')
    .subarray(0, MAX_RESULT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${cut}\n[result cut to 100 KB]`;
}

export interface TurnContext {
  workspaceId: string;
  sessionId: string;
  turnId: string;
  model: ResolvedModel;
  channel: TurnChannel;
  appender: LogAppender;
  sessions: SessionStore;
  tools: ToolProvider;
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
  let end: { stop: StopKind } | { error: { code: FailureCode; message: string } };
  channel.emit({ type: 'turn.started', model: model.ref });
  try {
    const log = await ctx.sessions.readLog(ctx.workspaceId, ctx.sessionId);
    const items = log.items;
    const adapter = await loadAdapter(model.protocol);
    const compaction = await maybeCompact(ctx, adapter, items);
    if (compaction) {
      items.push(compaction.record);
      usage = addUsage(usage, compaction.usage);
    }
    const specs = model.offerTools ? await ctx.tools.list(ctx.workspaceId, ctx.signal) : [];
    const system = [BASE_SYSTEM_PROMPT, languageLine(model.profile.language), await ctx.tools.systemPrompt(ctx.workspaceId)]
      .filter(Boolean)
      .join('\n\n');
    const userAt = items.length - 1;
    const cache = model.profile.cache.enabled && completedRounds(items.slice(0, userAt)) >= model.profile.cache.cache_threshold;
    let rounds = 0;
    for (;;) {
      const req: LlmRequest = {
        model: model.modelId,
        system,
        messages: buildConversation(items),
        tools: specs,
        maxTokens:
          model.protocol === 'native' ? model.maxTokens : (model.entry?.max_output_tokens ?? (model.thinkingBudget ? model.maxTokens : 0)),
        thinkingBudget: model.thinkingBudget,
        cache,
        cacheKey: ctx.sessionId,
      };
      const messageId = newId('m');
      lastMessageId = messageId;
      const partial: Block[] = [];
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
          items.push(message);
        }
        throw err;
      }
      usage = addUsage(usage, result.usage);
      lastInput = result.usage.input + result.usage.cache_read + result.usage.cache_write;
      itemCount = items.length;
      const blocks = result.blocks.map((b) => (b.type === 'tool_call' ? withSpec(b, specs) : b));
      const message: StoredMessage = {
        id: messageId,
        role: 'assistant',
        created_at: new Date().toISOString(),
        blocks,
        usage: result.usage,
        model: model.ref,
        turn_id: ctx.turnId,
      };
      appender.append({ t: 'message', m: message });
      items.push(message);
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
      items.push(toolMessage);
    }
  } catch (err) {
    end = { error: failureOf(err, ctx.signal, model.endpoint.apiKey) };
    ctx.logger.info(`chat: turn ${ctx.turnId} failed: ${end.error.code}: ${end.error.message}`);
  }
  await finish(ctx, { usage, lastMessageId, lastInput, itemCount }, end);
}

async function finish(
  ctx: TurnContext,
  state: { usage: Usage; lastMessageId: string; lastInput?: number; itemCount: number },
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
    const log = await ctx.sessions.readLog(ctx.workspaceId, ctx.sessionId);
    await ctx.sessions.update(ctx.workspaceId, ctx.sessionId, (meta) => {
      meta.updated_at = new Date().toISOString();
      meta.model = model.ref;
      meta.message_count = log.items.filter((i) => i.role !== 'system').length;
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

function withSpec(b: Extract<Block, { type: 'tool_call' }>, specs: ToolSpec[]): Block {
  const spec = specs.find((s) => s.name === b.name);
  return { ...b, server: spec?.server ?? '', tool: spec?.tool ?? b.name ?? b.tool };
}

/** One model↔tool round: each call announced, approved where needed, run, its result announced. */
async function runTools(ctx: TurnContext, calls: Extract<Block, { type: 'tool_call' }>[], specs: ToolSpec[]): Promise<Block[]> {
  const results: Block[] = [];
  for (const call of calls) {
    const spec = specs.find((s) => s.name === call.name);
    const needsApproval = !!spec?.needsApproval && !(INVALID_ARGS in call.arguments);
    ctx.channel.emit({
      type: 'turn.tool_call',
      call_id: call.call_id,
      server: call.server,
      tool: call.tool,
      arguments: call.arguments,
      needs_approval: needsApproval,
    });
    const outcome = await runOne(ctx, call, spec, needsApproval);
    const content = capResult(scrub(outcome.content, ctx.model.endpoint.apiKey));
    ctx.channel.emit({ type: 'turn.tool_result', call_id: call.call_id, ok: outcome.ok, content });
    results.push({
      type: 'tool_result',
      call_id: call.call_id,
      ok: outcome.ok,
      content,
      ...(outcome.keepOnCompaction ? { keep: true } : {}),
    });
  }
  return results;
}

async function runOne(
  ctx: TurnContext,
  call: Extract<Block, { type: 'tool_call' }>,
  spec: ToolSpec | undefined,
  needsApproval: boolean,
): Promise<ToolCallOutcome> {
  if (!spec) return { ok: false, content: `There is no tool named ${call.name ?? call.tool}.`, errorCode: 'tool_error' };
  const invalid = call.arguments[INVALID_ARGS];
  if (typeof invalid === 'string') return { ok: false, content: `The call was not run: ${invalid}`, errorCode: 'tool_error' };
  if (needsApproval) {
    const answer = await ctx.approvals.wait(call.call_id, ctx.signal);
    if (answer.remember && answer.decision === 'allow') {
      await ctx.tools
        .remember(ctx.workspaceId, spec)
        .catch((err: Error) => ctx.logger.error(`chat: remembering ${spec.name} failed: ${err.message}`));
    }
    if (answer.decision === 'deny') return { ok: false, content: 'The user denied this tool call.', errorCode: 'denied' };
  }
  try {
    return await ctx.tools.call(ctx.workspaceId, spec, call.arguments, ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return { ok: false, content: `The tool failed: ${(err as Error)?.message ?? String(err)}`, errorCode: 'tool_error' };
  }
}

export type { CompactionRecord };
