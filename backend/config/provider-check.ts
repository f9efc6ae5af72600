import { isSendableKey } from './env-overrides.js';
import type { ModelEntry, ModelKind, ProviderCheckError, ProviderCheckResult, ProviderEntry } from './config-api.js';

/** The version header the Claude messages API requires on every request. */
export const ANTHROPIC_VERSION = '2023-06-01';

interface Probe {
  url: string;
  headers: Record<string, string>;
}

/** Each provider type's model listing, with the auth its real API expects. */
export function probeFor(provider: ProviderEntry & { base_url: string }): Probe {
  const base = provider.base_url.replace(/\/+$/, '');
  const key = provider.api_key ?? '';
  switch (provider.type) {
    case 'compat':
    case 'responsemode':
      return { url: `${base}/models`, headers: key ? { authorization: `Bearer ${key}` } : {} };
    case 'native':
      // The Claude API lists models at /v1/models; accept a base that already ends in /v1.
      return {
        url: /\/v1$/.test(base) ? `${base}/models?limit=1000` : `${base}/v1/models?limit=1000`,
        headers: { 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION },
      };
  }
}

const TLS_CODES = /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_TLS|ERR_SSL|HOSTNAME_MISMATCH)/;

/** Names the network failure from fetch's cause chain. */
function classify(err: unknown, timedOut: boolean): { code: ProviderCheckError; message: string } {
  if (timedOut) return { code: 'timeout', message: 'The provider did not answer before the timeout.' };
  let cause: unknown = err;
  for (let i = 0; i < 4 && cause; i++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { code: 'dns', message: `The host name could not be resolved (${code}).` };
      if (TLS_CODES.test(code)) return { code: 'tls', message: `The TLS connection failed (${code}).` };
      return { code: 'unreachable', message: `The provider could not be reached (${code}).` };
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return { code: 'unreachable', message: `The provider could not be reached (${(err as Error)?.message ?? String(err)}).` };
}

const positive = (...values: unknown[]): number | undefined =>
  values.find((v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0);

/** OpenRouter's `architecture.input_modalities`, or a `vision` capability (LM Studio and others). */
function readsImages(m: Record<string, unknown>, caps: Record<string, unknown>): boolean {
  const arch = (typeof m.architecture === 'object' && m.architecture !== null ? m.architecture : {}) as Record<string, unknown>;
  const modalities = [arch.input_modalities, m.input_modalities, m.modalities].find(Array.isArray) as unknown[] | undefined;
  return (
    modalities?.includes('image') === true || caps.vision === true || (Array.isArray(m.capabilities) && m.capabilities.includes('vision'))
  );
}

/**
 * The remote model list; where the provider reports them (OpenRouter, Groq, Mistral, Together,
 * vLLM, LM Studio, …) the context window, output limit and tool/reasoning support come along.
 */
export function modelsFrom(body: unknown): ModelEntry[] | null {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return null;
  return data
    .filter((m): m is Record<string, unknown> & { id: string } => typeof (m as { id?: unknown })?.id === 'string')
    .map((m) => {
      const top = (typeof m.top_provider === 'object' && m.top_provider !== null ? m.top_provider : {}) as Record<string, unknown>;
      const caps = (typeof m.capabilities === 'object' && m.capabilities !== null ? m.capabilities : {}) as Record<string, unknown>;
      const params = Array.isArray(m.supported_parameters) ? m.supported_parameters : [];
      const context = positive(
        m.context_length,
        m.context_window,
        m.max_context_length,
        m.max_model_len,
        m.max_input_tokens,
        top.context_length,
      );
      const output = positive(top.max_completion_tokens, m.max_output_tokens, m.max_completion_tokens);
      const name = typeof m.display_name === 'string' ? m.display_name : typeof m.name === 'string' ? m.name : m.id;
      return {
        id: m.id,
        kind: kindOf(m),
        name,
        ...(context ? { context_window: context } : {}),
        ...(output ? { max_output_tokens: output } : {}),
        supports_thinking: params.includes('reasoning') || caps.reasoning === true || caps.thinking === true,
        supports_tools: params.includes('tools') || caps.function_calling === true || caps.tools === true || caps.tool_use === true,
        supports_vision: readsImages(m, caps),
      };
    });
}

/**
 * Embedding and rerank models sit in the same /models list as chat models; some servers say which
 * is which (`type`, `task`, vLLM's `pooling`), the others only in the id (`text-embedding-3-small`,
 * `bge-m3`, `jina-reranker-v2`). The user can correct a guess in the provider editor.
 */
function kindOf(m: Record<string, unknown>): ModelKind {
  const said = [m.type, m.task, m.object_type, m.model_type].filter((v): v is string => typeof v === 'string').join(' ');
  const text = `${said} ${m.id as string}`.toLowerCase();
  if (/rerank/.test(text)) return 'rerank';
  if (/embed|\bbge-|\be5-|\bgte-|minilm|nomic-embed|\bretriev/.test(text)) return 'embedding';
  return 'chat';
}

/** Reaches the provider with its own protocol and reports what happened; never throws. */
export async function checkProvider(provider: ProviderEntry, timeoutMs: number): Promise<ProviderCheckResult & { remote: ModelEntry[] }> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const fail = (code: ProviderCheckError, message: string, status?: number) => ({
    ok: false,
    latency_ms: elapsed(),
    models: [],
    remote: [],
    error: status === undefined ? { code, message } : { code, message, status },
  });
  if (!provider.base_url) return fail('not_configured', 'The provider has no base_url.');
  if (!isSendableKey(provider.api_key ?? ''))
    return fail('not_configured', 'The API key contains spaces, line breaks or other characters a header cannot carry; enter it again.');
  const probe = probeFor({ ...provider, base_url: provider.base_url });
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const res = await fetch(probe.url, {
      headers: { accept: 'application/json', ...probe.headers },
      signal: controller.signal,
      redirect: 'error',
    });
    const text = await res.text();
    if (res.status === 401 || res.status === 403)
      return fail('unauthorized', `The provider refused the API key (HTTP ${res.status}).`, res.status);
    if (res.status === 404)
      return fail('not_found', `The models listing was not found at ${probe.url.split('?')[0]} (HTTP 404); check base_url.`, 404);
    if (!res.ok) return fail('http_error', `The provider answered HTTP ${res.status}.`, res.status);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return fail('invalid_response', 'The provider answered with something other than JSON.');
    }
    const remote = modelsFrom(body);
    if (!remote) return fail('invalid_response', 'The answer has no "data" list of models.');
    return { ok: true, latency_ms: elapsed(), models: remote.map((m) => m.id), remote, error: null };
  } catch (err) {
    const { code, message } = classify(err, timedOut);
    const key = provider.api_key ?? '';
    return fail(code, key.length >= 4 ? message.split(key).join('***') : message);
  } finally {
    clearTimeout(timer);
  }
}
