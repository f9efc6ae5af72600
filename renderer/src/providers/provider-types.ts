import type { MaskedProvider, ModelEntry, ModelKind, ProviderEntry, ProvidersResponse } from '../../../backend/config/config-api.js';
import type { MessageKey } from '../i18n/i18n';

export type { MaskedProvider, ModelEntry, ModelKind, ProvidersResponse };

export const MODEL_KIND_LIST: readonly ModelKind[] = ['chat', 'embedding', 'rerank'];
export type ProviderType = ProviderEntry['type'];

export const PROVIDER_TYPE_LIST: readonly ProviderType[] = ['compat', 'native', 'responsemode'];

/** Base-URL examples per protocol, shown as placeholder and hint. */
export const BASE_URL_HINTS: Record<ProviderType, string> = {
  compat: 'https://api.openai.com/v1',
  native: 'https://api.anthropic.com/v1',
  responsemode: 'https://api.openai.com/v1',
};

export const TYPE_LABELS: Record<ProviderType, MessageKey> = {
  compat: 'providers.type.compat',
  native: 'providers.type.native',
  responsemode: 'providers.type.responsemode',
};

/** The body the API takes to create or replace a provider; no api_key keeps the stored one. */
export interface ProviderDraft {
  id: string;
  name: string;
  type: ProviderType;
  base_url?: string;
  api_key?: string;
  enabled: boolean;
  models: ModelDraft[];
}

export interface ModelDraft {
  id: string;
  /** What the model is for (DESIGN 13): chat, or embedding / rerank for knowledge bases. */
  kind: ModelKind;
  name?: string;
  context_window?: number;
  max_output_tokens?: number;
  supports_thinking: boolean;
  supports_tools: boolean;
  /** Reads images and PDFs (attachments). */
  supports_vision: boolean;
}

export interface TestResult {
  ok: boolean;
  latency_ms?: number;
  models?: (string | { id: string; name?: string; kind?: ModelKind })[];
  error?: string | { code?: string; message?: string };
  imported?: unknown[];
}

export function draftFrom(provider: MaskedProvider): ProviderDraft {
  return {
    id: provider.id,
    name: provider.name,
    type: provider.type,
    // A value that came from the environment is not the file's: leave it out of the edit.
    base_url: provider.base_url_source === 'file' ? (provider.base_url ?? undefined) : undefined,
    enabled: provider.enabled,
    models: provider.models.map((m) => ({
      id: m.id,
      kind: m.kind ?? 'chat',
      name: m.name,
      context_window: m.context_window,
      max_output_tokens: m.max_output_tokens,
      supports_thinking: m.supports_thinking ?? false,
      supports_tools: m.supports_tools ?? false,
      supports_vision: m.supports_vision ?? false,
    })),
  };
}
