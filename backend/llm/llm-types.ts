/** Token counts as the chat API reports them (DESIGN 6, `turn.usage`). */
export interface Usage {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning: number;
}

export const zeroUsage = (): Usage => ({ input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cache_read: a.cache_read + b.cache_read,
    cache_write: a.cache_write + b.cache_write,
    reasoning: a.reasoning + b.reasoning,
  };
}

/**
 * A block of a conversation message, protocol-neutral. Fields after the public ones carry what a
 * protocol needs back unchanged: native thinking `signature` / `redacted` data, responsemode
 * reasoning `item_id` + `encrypted`, the model-facing tool `name`, and the provider's own id of a
 * tool call (`provider_id`: DESIGN 9, `call_id` is the backend's, unique in the session).
 */
export type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string; signature?: string; redacted?: string; item_id?: string; encrypted?: string }
  | {
      type: 'tool_call';
      call_id: string;
      server: string;
      tool: string;
      arguments: Record<string, unknown>;
      name?: string;
      provider_id?: string;
    }
  | {
      type: 'tool_result';
      call_id: string;
      ok: boolean;
      content: string;
      keep?: boolean;
      provider_id?: string;
      media?: MediaBlock[];
    }
  | MediaBlock
  | ProviderItem;

/**
 * A block only the provider's own protocol understands (DESIGN 14: its web search server tool):
 * `raw` goes back to that protocol unchanged (encrypted search results included) and is dropped
 * for the others; `call_id`, `query` and `results` are what clients show as a tool card.
 */
export interface ProviderItem {
  type: 'provider_item';
  protocol: Protocol;
  /** `call` (a search the provider ran) or `result` (what it found). */
  role: 'call' | 'result';
  call_id: string;
  raw: Record<string, unknown>;
  query?: string;
  results?: WebCitation[];
  /** The provider's search failed (its error code). */
  error?: string;
}

/** A page a provider's search cited or found. */
export interface WebCitation {
  url: string;
  title: string;
}

/**
 * The id a provider sees for a tool call or its result: its own when it gave one, else the
 * backend's (older sessions stored the provider's id as `call_id`).
 */
export function providerCallId(b: { call_id: string; provider_id?: string }): string {
  return b.provider_id || b.call_id;
}

/**
 * An image or a PDF as a request carries it, base64 (DESIGN 8). Each adapter writes it in its
 * protocol's shape; text files and, for compat, PDFs arrive as text blocks instead.
 */
export interface MediaBlock {
  type: 'media';
  kind: 'image' | 'pdf';
  mime: string;
  name: string;
  data: string;
}

export interface ConvMessage {
  role: 'user' | 'assistant' | 'tool';
  blocks: Block[];
}

export type Protocol = 'compat' | 'native' | 'responsemode';

/** A tool as a provider request declares it (each adapter writes it in its protocol's shape). */
export interface ToolDefinition {
  /** Model-facing name: `[A-Za-z0-9_-]`, at most 64, unique within the request. */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  inputSchema: Record<string, unknown>;
}

/** Everything an adapter needs to build one provider request. */
export interface LlmRequest {
  model: string;
  system: string;
  messages: ConvMessage[];
  tools: ToolDefinition[];
  maxTokens: number;
  /** Thinking budget in tokens when thinking is on. */
  thinkingBudget?: number;
  /** Cache breakpoints (native) or prompt_cache_key (others) once the threshold is reached. */
  cache: boolean;
  cacheKey: string;
  /** DESIGN 14: the protocol's own web search tool is offered (native: at most `maxUses` searches). */
  webSearch?: { maxUses: number };
}

/** What an adapter reports while it reads the stream. */
export type StreamEvent =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_call_started'; call_id: string; name: string }
  | { type: 'usage'; usage: Usage };

/** `pause_turn`: a long server-tool turn paused (native); the reply is sent back as-is to continue. */
export type StopReason = 'end_turn' | 'max_tokens' | 'tool_use' | 'pause_turn';

export interface LlmResult {
  blocks: Block[];
  stopReason: StopReason;
  usage: Usage;
  /** Pages the provider's own search cited, in order of first citation. */
  citations?: WebCitation[];
}

export interface Endpoint {
  baseUrl: string;
  apiKey: string;
}

/** One protocol: the HTTP request for a turn step, and a reader that folds its stream. */
export interface ProtocolAdapter {
  request(req: LlmRequest, endpoint: Endpoint): { url: string; headers: Record<string, string>; body: unknown };
  /** A fresh reader per response; `feed` gets each SSE event, `finish` the final result. */
  reader(emit: (e: StreamEvent) => void): StreamReader;
}

export interface StreamReader {
  feed(event: string, data: string): void;
  /** Called when the body ended; throws a ProviderError when the stream was not complete. */
  finish(): LlmResult;
}

export type FailureCode =
  | 'provider_unauthorized'
  | 'provider_rate_limited'
  | 'provider_unreachable'
  | 'provider_error'
  | 'timeout'
  | 'cancelled'
  | 'context_overflow'
  | 'tool_error'
  | 'storage_error';

/** A failure of a turn, with the code the `turn.failed` frame carries. */
export class ProviderError extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
    /** Seconds the provider asked to wait (429/529), when retrying is allowed. */
    readonly retryAfter?: number,
    readonly retryable = false,
  ) {
    super(message);
  }
}
