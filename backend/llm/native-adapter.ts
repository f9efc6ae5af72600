import { jsonArgs, parseData } from './adapter-kit.js';
import {
  providerCallId,
  ProviderError,
  type Block,
  type ConvMessage,
  type LlmRequest,
  type MediaBlock,
  type ProtocolAdapter,
  type StopReason,
  type StreamEvent,
  type Usage,
  type WebCitation,
} from './llm-types.js';

export const ANTHROPIC_VERSION = '2023-06-01';
const EPHEMERAL = { type: 'ephemeral' } as const;

type Json = Record<string, unknown>;

/** native: the Claude messages API (facts/llm-protocols.md). */
export const nativeAdapter: ProtocolAdapter = {
  request(req, endpoint) {
    const body: Json = { model: req.model, max_tokens: req.maxTokens, stream: true };
    if (req.system) body.system = [{ type: 'text', text: req.system, ...(req.cache ? { cache_control: EPHEMERAL } : {}) }];
    const messages = nativeMessages(req.messages);
    if (req.cache) markLastBlock(messages);
    body.messages = messages;
    if (req.tools.length > 0) {
      body.tools = req.tools.map((t, i) => ({
        name: t.name,
        description: t.description,
        input_schema: t.inputSchema,
        ...(req.cache && i === req.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
      }));
    }
    if (req.webSearch) {
      const search = { type: 'web_search_20250305', name: 'web_search', max_uses: req.webSearch.maxUses };
      body.tools = [...((body.tools as Json[] | undefined) ?? []), search];
    }
    if (req.thinkingBudget) body.thinking = { type: 'enabled', budget_tokens: req.thinkingBudget };
    const url = /\/v1$/.test(endpoint.baseUrl) ? `${endpoint.baseUrl}/messages` : `${endpoint.baseUrl}/v1/messages`;
    return { url, headers: { 'x-api-key': endpoint.apiKey, 'anthropic-version': ANTHROPIC_VERSION }, body };
  },
  reader: (emit) => new NativeReader(emit),
};

function nativeBlock(b: Block): Json | null {
  switch (b.type) {
    case 'text':
      return b.text ? { type: 'text', text: b.text } : null;
    case 'thinking':
      // Sent back exactly as received; thinking without a signature (another protocol, cut short) cannot be.
      if (b.redacted) return { type: 'redacted_thinking', data: b.redacted };
      return b.signature ? { type: 'thinking', thinking: b.text, signature: b.signature } : null;
    case 'tool_call':
      return { type: 'tool_use', id: providerCallId(b), name: b.name ?? b.tool, input: b.arguments };
    case 'tool_result': {
      // Images a tool returned travel inside its result, after the text.
      const content = b.media?.length ? [{ type: 'text', text: b.content }, ...b.media.map(nativeMedia)] : b.content;
      return { type: 'tool_result', tool_use_id: providerCallId(b), content, ...(b.ok ? {} : { is_error: true }) };
    }
    case 'media':
      return nativeMedia(b);
    case 'provider_item':
      // Search blocks go back unchanged (their encrypted content included), to this protocol only.
      return b.protocol === 'native' ? b.raw : null;
  }
}

/** `image` and `document` blocks with base64 sources (facts: attachments per protocol). */
function nativeMedia(m: MediaBlock): Json {
  const source = { type: 'base64', media_type: m.mime, data: m.data };
  return m.kind === 'image' ? { type: 'image', source } : { type: 'document', source, title: m.name };
}

/** Roles alternate: tool results travel in the user turn, consecutive same-role messages merge. */
export function nativeMessages(messages: ConvMessage[]): { role: 'user' | 'assistant'; content: Json[] }[] {
  const out: { role: 'user' | 'assistant'; content: Json[] }[] = [];
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const content = m.blocks.map(nativeBlock).filter((b): b is Json => b !== null);
    if (content.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === role) {
      // Tool results must lead the user turn that answers tool_use blocks.
      last.content = role === 'user' ? [...last.content, ...content].sort(resultsFirst) : [...last.content, ...content];
    } else out.push({ role, content });
  }
  return out;
}

function resultsFirst(a: Json, b: Json): number {
  return (a.type === 'tool_result' ? 0 : 1) - (b.type === 'tool_result' ? 0 : 1);
}

function markLastBlock(messages: { content: Json[] }[]): void {
  const last = messages[messages.length - 1];
  if (!last) return;
  for (let i = last.content.length - 1; i >= 0; i--) {
    const block = last.content[i];
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    last.content[i] = { ...block, cache_control: EPHEMERAL };
    return;
  }
}

interface OpenBlock {
  type: string;
  text: string;
  signature: string;
  data: string;
  id: string;
  name: string;
  json: string;
  /** The block as it started (server tool blocks go back as received). */
  raw: Json;
}

interface NativeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

class NativeReader {
  private readonly blocks = new Map<number, OpenBlock>();
  private stopReason: string | null = null;
  private stopped = false;
  private readonly citations = new Map<string, WebCitation>();
  private usage: Usage = { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 };

  constructor(private readonly emit: (e: StreamEvent) => void) {}

  /** Usage is cumulative across message_start and message_delta: keep the largest, never add. */
  private takeUsage(u: NativeUsage | undefined): void {
    if (!u) return;
    const next: Usage = {
      input: Math.max(this.usage.input, u.input_tokens ?? 0),
      output: Math.max(this.usage.output, u.output_tokens ?? 0),
      cache_read: Math.max(this.usage.cache_read, u.cache_read_input_tokens ?? 0),
      cache_write: Math.max(this.usage.cache_write, u.cache_creation_input_tokens ?? 0),
      reasoning: 0,
    };
    this.usage = next;
    this.emit({ type: 'usage', usage: next });
  }

  feed(event: string, data: string): void {
    const msg = parseData<Json & { type?: string }>(data);
    const type = msg.type ?? event;
    switch (type) {
      case 'message_start':
        return this.takeUsage((msg.message as { usage?: NativeUsage } | undefined)?.usage);
      case 'content_block_start': {
        const cb = (msg.content_block ?? {}) as Json;
        const block: OpenBlock = {
          type: String(cb.type ?? ''),
          text: String(cb.text ?? cb.thinking ?? ''),
          signature: String(cb.signature ?? ''),
          data: String(cb.data ?? ''),
          id: String(cb.id ?? ''),
          name: String(cb.name ?? ''),
          json: '',
          raw: cb,
        };
        this.blocks.set(Number(msg.index), block);
        if (Array.isArray(cb.citations)) for (const c of cb.citations) this.cite(c);
        if (block.type === 'tool_use') this.emit({ type: 'tool_call_started', call_id: block.id, name: block.name });
        if (block.text && block.type === 'text') this.emit({ type: 'text', text: block.text });
        return;
      }
      case 'content_block_delta': {
        const block = this.blocks.get(Number(msg.index));
        const d = (msg.delta ?? {}) as Json;
        if (!block) return;
        if (d.type === 'text_delta' && typeof d.text === 'string') {
          block.text += d.text;
          this.emit({ type: 'text', text: d.text });
        } else if (d.type === 'thinking_delta' && typeof d.thinking === 'string') {
          block.text += d.thinking;
          this.emit({ type: 'thinking', text: d.thinking });
        } else if (d.type === 'signature_delta' && typeof d.signature === 'string') block.signature += d.signature;
        else if (d.type === 'input_json_delta' && typeof d.partial_json === 'string') block.json += d.partial_json;
        else if (d.type === 'citations_delta') this.cite(d.citation);
        return;
      }
      case 'message_delta':
        this.stopReason = String((msg.delta as Json | undefined)?.stop_reason ?? this.stopReason ?? '');
        return this.takeUsage(msg.usage as NativeUsage | undefined);
      case 'message_stop':
        this.stopped = true;
        return;
      case 'error': {
        const err = (msg.error ?? {}) as { type?: string; message?: string };
        const limited = /overloaded|rate_limit/.test(err.type ?? '');
        throw new ProviderError(
          limited ? 'provider_rate_limited' : 'provider_error',
          `The provider reported ${err.type ?? 'an error'} mid-stream: ${err.message ?? ''}`.trim(),
          undefined,
          limited,
        );
      }
      default:
        return; // ping, content_block_stop and event types added later
    }
  }

  /** A `web_search_result_location` citation on a text block (DESIGN 14). */
  private cite(c: unknown): void {
    const citation = (c ?? {}) as { url?: unknown; title?: unknown };
    if (typeof citation.url !== 'string' || this.citations.has(citation.url)) return;
    this.citations.set(citation.url, { url: citation.url, title: typeof citation.title === 'string' ? citation.title : '' });
  }

  finish() {
    if (!this.stopped) throw new ProviderError('provider_unreachable', 'The provider closed the stream before message_stop.');
    const blocks: Block[] = [];
    for (const [, b] of [...this.blocks.entries()].sort((x, y) => x[0] - y[0])) {
      if (b.type === 'text' && b.text) blocks.push({ type: 'text', text: b.text });
      else if (b.type === 'thinking') blocks.push({ type: 'thinking', text: b.text, signature: b.signature });
      else if (b.type === 'redacted_thinking') blocks.push({ type: 'thinking', text: '', redacted: b.data });
      else if (b.type === 'tool_use')
        blocks.push({ type: 'tool_call', call_id: b.id, name: b.name, server: '', tool: b.name, arguments: jsonArgs(b.json, b.name) });
      else if (b.type === 'server_tool_use') {
        const input = b.json ? jsonArgs(b.json, b.name) : ((b.raw.input as Json | undefined) ?? {});
        const raw = { type: 'server_tool_use', id: b.id, name: b.name, input };
        blocks.push({ type: 'provider_item', protocol: 'native', role: 'call', call_id: b.id, raw, query: String(input.query ?? '') });
      } else if (b.type === 'web_search_tool_result') {
        const content = b.raw.content;
        const results = Array.isArray(content)
          ? (content as Json[]).map((r) => ({ url: String(r.url ?? ''), title: String(r.title ?? '') })).filter((r) => r.url)
          : [];
        const error = Array.isArray(content) ? undefined : String((content as Json | undefined)?.error_code ?? 'unknown error');
        const callId = String(b.raw.tool_use_id ?? '');
        blocks.push({
          type: 'provider_item',
          protocol: 'native',
          role: 'result',
          call_id: callId,
          raw: b.raw,
          results,
          ...(error ? { error } : {}),
        });
      }
    }
    const stop: StopReason =
      this.stopReason === 'tool_use'
        ? 'tool_use'
        : this.stopReason === 'max_tokens'
          ? 'max_tokens'
          : this.stopReason === 'pause_turn'
            ? 'pause_turn'
            : 'end_turn';
    const citations = [...this.citations.values()];
    return { blocks, stopReason: stop, usage: this.usage, ...(citations.length > 0 ? { citations } : {}) };
  }
}

export type { LlmRequest };
