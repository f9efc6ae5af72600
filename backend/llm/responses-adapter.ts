import { dataUrl, effortFor, jsonArgs, parseData, toolImagesIntro, toolResultText } from './adapter-kit.js';
import {
  providerCallId,
  ProviderError,
  type Block,
  type LlmRequest,
  type ProtocolAdapter,
  type StopReason,
  type StreamEvent,
  type Usage,
  type WebCitation,
} from './llm-types.js';

type Json = Record<string, unknown>;

/** responsemode: the OpenAI responses API (facts/llm-protocols.md), without server-side storage. */
export const responsesAdapter: ProtocolAdapter = {
  request(req, endpoint) {
    const body: Json = { model: req.model, stream: true, store: false, input: responsesInput(req) };
    if (req.system) body.instructions = req.system;
    if (req.maxTokens > 0) body.max_output_tokens = req.maxTokens;
    if (req.tools.length > 0) {
      body.tools = req.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.inputSchema }));
    }
    // DESIGN 14: the provider's own search; its `url_citation` annotations become the reply's sources.
    if (req.webSearch) body.tools = [...((body.tools as Json[] | undefined) ?? []), { type: 'web_search' }];
    if (req.thinkingBudget) {
      body.reasoning = { effort: effortFor(req.thinkingBudget), summary: 'auto' };
      // Reasoning carried across steps without server storage: encrypted items go back as input.
      body.include = ['reasoning.encrypted_content'];
    }
    if (req.cache) body.prompt_cache_key = req.cacheKey;
    const headers: Record<string, string> = endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {};
    return { url: `${endpoint.baseUrl}/responses`, headers, body };
  },
  reader: (emit) => new ResponsesReader(emit),
};

function responsesInput(req: LlmRequest): Json[] {
  const out: Json[] = [];
  for (const m of req.messages) {
    if (m.role === 'user' && m.blocks.some((b) => b.type === 'media')) {
      out.push({ type: 'message', role: 'user', content: inputParts(m.blocks) });
      continue;
    }
    const toolImages: Block[] = [];
    for (const b of m.blocks) {
      if (b.type === 'text' && b.text) {
        out.push(
          m.role === 'assistant'
            ? { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: b.text }] }
            : { type: 'message', role: 'user', content: [{ type: 'input_text', text: b.text }] },
        );
      } else if (b.type === 'thinking' && b.encrypted && b.item_id) {
        out.push({
          type: 'reasoning',
          id: b.item_id,
          summary: b.text ? [{ type: 'summary_text', text: b.text }] : [],
          encrypted_content: b.encrypted,
        });
      } else if (b.type === 'tool_call') {
        out.push({ type: 'function_call', call_id: providerCallId(b), name: b.name ?? b.tool, arguments: JSON.stringify(b.arguments) });
      } else if (b.type === 'tool_result') {
        out.push({ type: 'function_call_output', call_id: providerCallId(b), output: toolResultText(b) });
        if (b.media?.length) toolImages.push({ type: 'text', text: toolImagesIntro(b) }, ...b.media);
      }
    }
    // Function outputs are text; a tool's images follow in a user message once the step is answered.
    if (toolImages.length > 0) out.push({ type: 'message', role: 'user', content: inputParts(toolImages) });
  }
  return out;
}

/** input_text, input_image and input_file parts, in the order of the blocks (facts: attachments per protocol). */
function inputParts(blocks: Block[]): Json[] {
  const parts: Json[] = [];
  for (const b of blocks) {
    if (b.type === 'text' && b.text) parts.push({ type: 'input_text', text: b.text });
    else if (b.type === 'media' && b.kind === 'image') parts.push({ type: 'input_image', image_url: dataUrl(b) });
    else if (b.type === 'media') parts.push({ type: 'input_file', filename: b.name, file_data: dataUrl(b) });
  }
  return parts;
}

interface Item {
  kind: 'message' | 'reasoning' | 'function_call' | 'web_search_call' | 'other';
  id: string;
  text: string;
  callId: string;
  name: string;
  args: string;
  encrypted?: string;
}

interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens_details?: { reasoning_tokens?: number };
}

class ResponsesReader {
  private readonly items = new Map<number, Item>();
  private done = false;
  private stop: StopReason = 'end_turn';
  private readonly citations = new Map<string, WebCitation>();
  /** Searches the provider ran: output index → query and status. */
  private readonly searches = new Map<number, { id: string; query: string; failed: boolean; raw: Json }>();
  private usage: Usage = { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 };

  constructor(private readonly emit: (e: StreamEvent) => void) {}

  private item(index: unknown): Item {
    const key = Number(index ?? 0);
    let item = this.items.get(key);
    if (!item) {
      item = { kind: 'other', id: '', text: '', callId: '', name: '', args: '' };
      this.items.set(key, item);
    }
    return item;
  }

  feed(event: string, data: string): void {
    const msg = parseData<Json & { type?: string }>(data);
    const type = msg.type ?? event;
    switch (type) {
      case 'response.output_item.added': {
        const raw = (msg.item ?? {}) as Json;
        const item = this.item(msg.output_index);
        item.kind =
          raw.type === 'message' || raw.type === 'reasoning' || raw.type === 'function_call' || raw.type === 'web_search_call'
            ? raw.type
            : 'other';
        item.id = String(raw.id ?? '');
        if (item.kind === 'function_call') {
          item.callId = String(raw.call_id ?? raw.id ?? '');
          item.name = String(raw.name ?? '');
          item.args = String(raw.arguments ?? '');
          this.emit({ type: 'tool_call_started', call_id: item.callId, name: item.name });
        }
        return;
      }
      case 'response.output_text.delta':
        return this.delta(msg, 'text');
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return this.delta(msg, 'thinking');
      case 'response.function_call_arguments.delta':
        this.item(msg.output_index).args += String(msg.delta ?? '');
        return;
      case 'response.function_call_arguments.done':
        this.item(msg.output_index).args = String(msg.arguments ?? this.item(msg.output_index).args);
        return;
      case 'response.output_item.done': {
        const raw = (msg.item ?? {}) as Json;
        const item = this.item(msg.output_index);
        if (raw.type === 'function_call' && typeof raw.arguments === 'string') item.args = raw.arguments;
        if (raw.type === 'reasoning' && typeof raw.encrypted_content === 'string') item.encrypted = raw.encrypted_content;
        if (raw.type === 'message' && Array.isArray(raw.content))
          for (const part of raw.content as Json[]) if (Array.isArray(part.annotations)) for (const a of part.annotations) this.cite(a);
        if (raw.type === 'web_search_call') {
          const action = (raw.action ?? {}) as { query?: unknown; queries?: unknown; url?: unknown };
          const queries = Array.isArray(action.queries) ? action.queries.filter((q) => typeof q === 'string') : [];
          const query =
            typeof action.query === 'string' ? action.query : queries.join('; ') || (typeof action.url === 'string' ? action.url : '');
          this.searches.set(Number(msg.output_index ?? 0), { id: String(raw.id ?? ''), query, failed: raw.status === 'failed', raw });
        }
        return;
      }
      case 'response.output_text.annotation.added':
        this.cite(msg.annotation);
        return;
      case 'response.completed':
      case 'response.incomplete': {
        const response = (msg.response ?? {}) as { usage?: ResponsesUsage; incomplete_details?: { reason?: string } };
        this.takeUsage(response.usage);
        if (type === 'response.incomplete')
          this.stop = response.incomplete_details?.reason === 'max_output_tokens' ? 'max_tokens' : 'end_turn';
        this.done = true;
        return;
      }
      case 'response.failed': {
        const err = ((msg.response as Json | undefined)?.error ?? {}) as { code?: string; message?: string };
        throw this.failure(err.code, err.message);
      }
      case 'error':
        throw this.failure(msg.code as string | undefined, msg.message as string | undefined);
      default:
        return;
    }
  }

  private delta(msg: Json, kind: 'text' | 'thinking'): void {
    const text = String(msg.delta ?? '');
    if (!text) return;
    const item = this.item(msg.output_index);
    if (item.kind === 'other') item.kind = kind === 'text' ? 'message' : 'reasoning';
    if (kind === 'thinking' && item.text && Number(msg.summary_index ?? 0) > 0 && !item.text.endsWith('\n')) {
      // A new summary part: keep parts apart.
      item.text += '\n\n';
    }
    item.text += text;
    this.emit({ type: kind, text });
  }

  private cite(a: unknown): void {
    const annotation = (a ?? {}) as { type?: unknown; url?: unknown; title?: unknown };
    if (annotation.type !== 'url_citation' || typeof annotation.url !== 'string' || this.citations.has(annotation.url)) return;
    this.citations.set(annotation.url, { url: annotation.url, title: typeof annotation.title === 'string' ? annotation.title : '' });
  }

  private failure(code: string | undefined, message: string | undefined): ProviderError {
    const limited = /rate_limit|overloaded|capacity/.test(code ?? '');
    return new ProviderError(
      limited ? 'provider_rate_limited' : 'provider_error',
      `The provider reported ${code ?? 'an error'}: ${message ?? ''}`.trim(),
      undefined,
      limited,
    );
  }

  private takeUsage(u: ResponsesUsage | undefined): void {
    if (!u) return;
    const cached = u.input_tokens_details?.cached_tokens ?? 0;
    this.usage = {
      input: Math.max(0, (u.input_tokens ?? 0) - cached),
      output: u.output_tokens ?? 0,
      cache_read: cached,
      cache_write: 0,
      reasoning: u.output_tokens_details?.reasoning_tokens ?? 0,
    };
    this.emit({ type: 'usage', usage: this.usage });
  }

  finish() {
    if (!this.done) throw new ProviderError('provider_unreachable', 'The provider closed the stream before response.completed.');
    const blocks: Block[] = [];
    let calls = 0;
    for (const [index, item] of [...this.items.entries()].sort((a, b) => a[0] - b[0])) {
      const search = this.searches.get(index);
      if (item.kind === 'web_search_call' && search) {
        // Shown as a tool card; never sent back (store: false has no server item to refer to).
        const common = { type: 'provider_item', protocol: 'responsemode', call_id: search.id, raw: search.raw } as const;
        blocks.push({ ...common, role: 'call', query: search.query });
        blocks.push({ ...common, role: 'result', results: [], ...(search.failed ? { error: 'failed' } : {}) });
      } else if (item.kind === 'reasoning' && (item.text || item.encrypted))
        blocks.push({ type: 'thinking', text: item.text, item_id: item.id, ...(item.encrypted ? { encrypted: item.encrypted } : {}) });
      else if (item.kind === 'message' && item.text) blocks.push({ type: 'text', text: item.text });
      else if (item.kind === 'function_call') {
        calls += 1;
        blocks.push({
          type: 'tool_call',
          call_id: item.callId,
          name: item.name,
          server: '',
          tool: item.name,
          arguments: jsonArgs(item.args, item.name),
        });
      }
    }
    const citations = [...this.citations.values()];
    return { blocks, stopReason: calls > 0 ? 'tool_use' : this.stop, usage: this.usage, ...(citations.length > 0 ? { citations } : {}) };
  }
}
