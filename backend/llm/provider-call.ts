import { SseDecoder } from './sse.js';
import { ProviderError, type Endpoint, type LlmRequest, type LlmResult, type ProtocolAdapter, type StreamEvent } from './llm-types.js';

/** Retries of 429/529/overloaded (DESIGN 6). */
export const MAX_RETRIES = 3;

/** Removes the API key (and any bearer token) from text that came from a provider. */
export function scrub(text: string, apiKey: string): string {
  let out = text;
  if (apiKey.length >= 4) out = out.split(apiKey).join('***');
  return out.replace(/(bearer\s+)[^\s"',]+/gi, '$1***');
}

function retryAfterSeconds(header: string | null): number | undefined {
  if (!header) return undefined;
  const n = Number(header);
  if (Number.isFinite(n) && n >= 0) return n;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

/** `{error: {message, type}}` (OpenAI, Anthropic) or plain text, cut short. */
export function providerMessage(text: string): { message: string; type: string } {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; type?: unknown; code?: unknown } | string; message?: unknown };
    const err = typeof body.error === 'object' && body.error ? body.error : undefined;
    const message = err?.message ?? (typeof body.error === 'string' ? body.error : body.message);
    if (typeof message === 'string') return { message: message.slice(0, 500), type: String(err?.type ?? err?.code ?? '') };
  } catch {
    // not JSON
  }
  return { message: text.trim().slice(0, 200), type: '' };
}

const OVERFLOW = /context[ _-]?(length|window)|too long|maximum context|prompt is too long|too many tokens/i;

/** Maps a non-2xx answer to the failure it means. */
export function httpFailure(status: number, bodyText: string, retryAfter: string | null, apiKey: string): ProviderError {
  const { message, type } = providerMessage(bodyText);
  const detail = scrub(message ? `: ${message}` : '', apiKey);
  if (status === 401 || status === 403)
    return new ProviderError('provider_unauthorized', `The provider refused the API key (HTTP ${status})${detail}`);
  if (status === 429 || status === 529 || /overloaded|rate_limit/i.test(type))
    return new ProviderError(
      'provider_rate_limited',
      `The provider is rate limiting or overloaded (HTTP ${status})${detail}`,
      retryAfterSeconds(retryAfter),
      true,
    );
  if ((status === 400 || status === 413) && OVERFLOW.test(message))
    return new ProviderError('context_overflow', `The conversation does not fit the model's context window (HTTP ${status})${detail}`);
  return new ProviderError('provider_error', `The provider answered HTTP ${status}${detail}`);
}

function abortError(signal: AbortSignal): ProviderError {
  const reason = signal.reason === 'timeout' ? 'timeout' : 'cancelled';
  return new ProviderError(reason, reason === 'timeout' ? 'The turn ran longer than timeout_seconds.' : 'The turn was cancelled.');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(abortError(signal));
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface CallOptions {
  signal: AbortSignal;
  /** Epoch ms after which no retry wait may end (the turn's timeout). */
  deadline: number;
  emit: (e: StreamEvent) => void;
  onRetry?: (attempt: number, waitSeconds: number, reason: string) => void;
}

/** One model call: POST, stream, fold; retried on rate limits while nothing has streamed yet. */
export async function callProvider(adapter: ProtocolAdapter, req: LlmRequest, endpoint: Endpoint, opts: CallOptions): Promise<LlmResult> {
  for (let attempt = 0; ; attempt++) {
    let streamed = false;
    const emit = (e: StreamEvent) => {
      if (e.type !== 'usage') streamed = true;
      opts.emit(e);
    };
    try {
      return await attemptOnce(adapter, req, endpoint, opts.signal, emit);
    } catch (err) {
      if (!(err instanceof ProviderError) || !err.retryable || streamed || attempt >= MAX_RETRIES) throw err;
      const wait = err.retryAfter ?? 2 ** attempt;
      if (Date.now() + wait * 1000 > opts.deadline) throw err;
      opts.onRetry?.(attempt + 1, wait, err.message);
      await sleep(wait * 1000, opts.signal);
    }
  }
}

async function attemptOnce(
  adapter: ProtocolAdapter,
  req: LlmRequest,
  endpoint: Endpoint,
  signal: AbortSignal,
  emit: (e: StreamEvent) => void,
): Promise<LlmResult> {
  // Visible ASCII only, else fetch refuses the header and quotes the key in its error.
  if (!/^[\x21-\x7e]*$/.test(endpoint.apiKey))
    throw new ProviderError(
      'provider_unauthorized',
      'The API key contains spaces, line breaks or other characters a header cannot carry; enter it again.',
    );
  const { url, headers, body } = adapter.request(req, endpoint);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify(body),
      signal,
      redirect: 'error',
    });
  } catch (err) {
    if (signal.aborted) throw abortError(signal);
    const cause = scrub(causeCode(err), endpoint.apiKey);
    throw new ProviderError('provider_unreachable', `The provider could not be reached at ${new URL(url).origin} (${cause}).`);
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    throw httpFailure(res.status, text, res.headers.get('retry-after'), endpoint.apiKey);
  }
  if (!res.body) throw new ProviderError('provider_error', 'The provider answered without a body.');
  const reader = adapter.reader(emit);
  const decoder = new SseDecoder();
  const feed = (events: { event: string; data: string }[]) => {
    for (const e of events) reader.feed(e.event, e.data);
  };
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) feed(decoder.push(chunk));
  } catch (err) {
    if (signal.aborted) throw abortError(signal);
    if (err instanceof ProviderError) throw withoutKey(err, endpoint.apiKey);
    throw new ProviderError('provider_unreachable', `The connection to the provider was lost mid-stream (${causeCode(err)}).`);
  }
  try {
    feed(decoder.end());
    return reader.finish();
  } catch (err) {
    if (err instanceof ProviderError) throw withoutKey(err, endpoint.apiKey);
    throw err;
  }
}

function withoutKey(err: ProviderError, apiKey: string): ProviderError {
  const message = scrub(err.message, apiKey);
  return message === err.message ? err : new ProviderError(err.code, message, err.retryAfter, err.retryable);
}

function causeCode(err: unknown): string {
  let cause: unknown = err;
  for (let i = 0; i < 4 && cause; i++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return (err as Error)?.message ?? 'network error';
}
