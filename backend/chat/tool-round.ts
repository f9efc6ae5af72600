import { randomBytes } from 'node:crypto';
import { INVALID_ARGS } from '../llm/adapter-kit.js';
import { ProviderError, type Block } from '../llm/llm-types.js';
import { scrub } from '../llm/provider-call.js';
import type { ToolCallOutcome, ToolSource, ToolSpec } from '../tools/tool-source.js';
import type { Logger } from '../log/logger.js';
import type { ApprovalBox } from './approvals.js';
import type { ResolvedModel } from './model-resolver.js';
import type { TurnChannel } from './turn-channel.js';

type ToolCall = Extract<Block, { type: 'tool_call' }>;

/** What a model↔tool round needs of the turn it runs in. */
export interface ToolRoundTurn {
  workspaceId: string;
  /** The provider's key is scrubbed from tool results. */
  model: Pick<ResolvedModel, 'endpoint'>;
  tools: ToolSource;
  approvals: Pick<ApprovalBox, 'wait'>;
  channel: Pick<TurnChannel, 'emit'>;
  logger: Pick<Logger, 'error'>;
  signal: AbortSignal;
}

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

/** Tool-provider failures outside a call (starting servers, listing) end the turn as tool_error. */
export async function toolStep<T>(signal: AbortSignal, what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await untilAborted(step(), signal);
  } catch (err) {
    if (signal.aborted || err instanceof ProviderError) throw err;
    throw new ProviderError('tool_error', `The tools failed while ${what}: ${(err as Error)?.message ?? String(err)}`);
  }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}

/**
 * DESIGN 9: every call gets the backend's own id, unique in the session, for frames, approvals and
 * stored blocks; the provider's id (some compatible servers send none, or `call_0` every round)
 * is kept only to answer the provider.
 */
export function ownCallId(b: ToolCall): ToolCall {
  return { ...b, call_id: `call_${randomBytes(12).toString('base64url')}`, ...(b.call_id ? { provider_id: b.call_id } : {}) };
}

export function withSpec(b: ToolCall, specs: ToolSpec[]): Block {
  const spec = specs.find((s) => s.name === b.name);
  return { ...b, server: spec?.server ?? '', tool: spec?.tool ?? b.name ?? b.tool };
}

/** One model↔tool round: each call announced, approved where needed, run, its result announced. */
export async function runTools(ctx: ToolRoundTurn, calls: ToolCall[], specs: ToolSpec[]): Promise<Block[]> {
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
      ...(call.provider_id ? { provider_id: call.provider_id } : {}),
      ok: outcome.ok,
      content,
      ...(outcome.keepOnCompaction ? { keep: true } : {}),
    });
  }
  return results;
}

async function runOne(ctx: ToolRoundTurn, call: ToolCall, spec: ToolSpec | undefined, needsApproval: boolean): Promise<ToolCallOutcome> {
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
    // A provider that ignores the signal must not hold a cancelled or timed-out turn open.
    return await untilAborted(ctx.tools.call(ctx.workspaceId, spec, call.arguments, ctx.signal), ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return { ok: false, content: `The tool failed: ${(err as Error)?.message ?? String(err)}`, errorCode: 'tool_error' };
  }
}
