import { effortFor, jsonArgs, parseData, toolResultText } from './adapter-kit.js';
import {
  providerCallId,
  ProviderError,
  zeroUsage,
  type Block,
  type LlmRequest,
  type ProtocolAdapter,
  type StopReason,
  type StreamEvent,
} from './llm-types.js';

/** compat: OpenAI-style chat completions (facts/llm-protocols.md). */
export const compatAdapter: ProtocolAdapter = {
  request(req, endpoint) {
    const body: Record<string, unknown> = {
      model: req.model,
      stream: true,
      stream_options: { include_usage: true },
      messages: compatMessages(req),
    };
    if (req.maxTokens > 0) body.max_tokens = req.maxTokens;
    if (req.tools.length > 0) {
      body.tools = req.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.inputSchema },
      }));
    }
    if (req.thinkingBudget) body.reasoning_effort = effortFor(req.thinkingBudget);
    if (req.cache) body.prompt_cache_key = req.cacheKey;
    const headers: Record<string, string> = endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {};
    return { url: `${endpoint.baseUrl}/chat/completions`, headers, body };
  },
  reader: (emit) => new CompatReader(emit),
};

function compatMessages(req: LlmRequest): unknown[] {
  const out: unknown[] = [];
  if (req.system) out.push({ role: 'system', content: req.system });
  for (const m of req.messages) {
    const text = m.blocks
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join('\n\n');
    if (m.role === 'user') out.push({ role: 'user', content: text });
    else if (m.role === 'assistant') {
      const calls = m.blocks.flatMap((b) =>
        b.type === 'tool_call'
          ? [{ id: providerCallId(b), type: 'function', function: { name: b.name ?? b.tool, arguments: JSON.stringify(b.arguments) } }]
          : [],
      );
      out.push(calls.length > 0 ? { role: 'assistant', content: text || null, tool_calls: calls } : { role: 'assistant', content: text });
    } else {
      for (const b of m.blocks)
        if (b.type === 'tool_result') out.push({ role: 'tool', tool_call_id: providerCallId(b), content: toolResultText(b) });
    }
  }
  return out;
}

interface CompatChunk {
  error?: { message?: string; type?: string; code?: string };
  choices?: { index?: number; delta?: CompatDelta; finish_reason?: string | null }[] | null;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number };
    completion_tokens_details?: { reasoning_tokens?: number };
  } | null;
}

interface CompatDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

class CompatReader {
  private text = '';
  private thinking = '';
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();
  private finishReason: string | null = null;
  private done = false;
  private usage = zeroUsage();
  /** Inline `<think>…</think>` at the start of content: 'undecided' until the prefix shows. */
  private inline: 'undecided' | 'inside' | 'off' = 'undecided';
  private pending = '';

  constructor(private readonly emit: (e: StreamEvent) => void) {}

  feed(_event: string, data: string): void {
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    const chunk = parseData<CompatChunk>(data);
    if (chunk.error) {
      const msg = chunk.error.message ?? 'unknown error';
      const limited = /rate|overload|capacity/i.test(`${chunk.error.type ?? ''} ${chunk.error.code ?? ''}`);
      throw new ProviderError(
        limited ? 'provider_rate_limited' : 'provider_error',
        `The provider reported an error mid-stream: ${msg}`,
        undefined,
        limited,
      );
    }
    for (const choice of chunk.choices ?? []) {
      const d = choice.delta ?? {};
      const reasoning = d.reasoning_content ?? d.reasoning;
      if (reasoning) this.addThinking(reasoning);
      if (d.content) this.addContent(d.content);
      for (const tc of d.tool_calls ?? []) {
        const index = tc.index ?? 0;
        let call = this.calls.get(index);
        if (!call) {
          // Some compatible servers send no id: the backend's own id then serves the provider as well.
          call = { id: tc.id ?? '', name: tc.function?.name ?? '', args: '' };
          this.calls.set(index, call);
          if (call.name) this.emit({ type: 'tool_call_started', call_id: call.id, name: call.name });
        } else if (tc.function?.name && !call.name) call.name = tc.function.name;
        call.args += tc.function?.arguments ?? '';
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    if (chunk.usage) {
      const u = chunk.usage;
      const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
      this.usage = {
        input: Math.max(0, (u.prompt_tokens ?? 0) - cached),
        output: u.completion_tokens ?? 0,
        cache_read: cached,
        cache_write: 0,
        reasoning: u.completion_tokens_details?.reasoning_tokens ?? 0,
      };
      this.emit({ type: 'usage', usage: this.usage });
    }
  }

  private addThinking(text: string): void {
    this.thinking += text;
    this.emit({ type: 'thinking', text });
  }

  private addText(text: string): void {
    if (!text) return;
    this.text += text;
    this.emit({ type: 'text', text });
  }

  private addContent(content: string): void {
    if (this.inline === 'off') return this.addText(content);
    this.pending += content;
    if (this.inline === 'undecided') {
      const head = this.pending.trimStart();
      if (head.length < THINK_OPEN.length && THINK_OPEN.startsWith(head)) return;
      if (!head.startsWith(THINK_OPEN)) {
        this.inline = 'off';
        const all = this.pending;
        this.pending = '';
        return this.addText(all);
      }
      this.inline = 'inside';
      this.pending = head.slice(THINK_OPEN.length);
    }
    const close = this.pending.indexOf(THINK_CLOSE);
    if (close >= 0) {
      this.addThinking(this.pending.slice(0, close));
      const rest = this.pending.slice(close + THINK_CLOSE.length).replace(/^\s+/, '');
      this.pending = '';
      this.inline = 'off';
      return this.addText(rest);
    }
    // Keep a tail that could be the start of "</think>".
    const keep = THINK_CLOSE.length - 1;
    if (this.pending.length > keep) {
      this.addThinking(this.pending.slice(0, -keep));
      this.pending = this.pending.slice(-keep);
    }
  }

  finish() {
    if (this.pending) {
      if (this.inline === 'inside') this.addThinking(this.pending);
      else this.addText(this.pending);
      this.pending = '';
    }
    if (!this.done && this.finishReason === null) {
      throw new ProviderError('provider_unreachable', 'The provider closed the stream before the answer was complete.');
    }
    const blocks: Block[] = [];
    if (this.thinking) blocks.push({ type: 'thinking', text: this.thinking });
    if (this.text) blocks.push({ type: 'text', text: this.text });
    for (const call of [...this.calls.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1])) {
      blocks.push({
        type: 'tool_call',
        call_id: call.id,
        name: call.name,
        server: '',
        tool: call.name,
        arguments: jsonArgs(call.args, call.name),
      });
    }
    const stopReason: StopReason = this.calls.size > 0 ? 'tool_use' : this.finishReason === 'length' ? 'max_tokens' : 'end_turn';
    return { blocks, stopReason, usage: this.usage };
  }
}
