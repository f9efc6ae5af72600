import type { ConfigStore } from '../config/config-store.js';
import { ApiError } from '../http/errors.js';
import type { ModelInfo } from './branch-api.js';
import { DEFAULT_CONTEXT_WINDOW } from './model-resolver.js';

export async function listModels(config: ConfigStore): Promise<ModelInfo[]> {
  await config.refresh();
  return config.snapshot().providers.flatMap((p) =>
    p.models.map((m) => ({
      id: `${p.id}:${m.id}`,
      provider: p.id,
      provider_name: p.name,
      name: m.name ?? m.id,
      kind: m.kind,
      context_window: m.context_window ?? DEFAULT_CONTEXT_WINDOW,
      ...(m.max_output_tokens ? { max_output_tokens: m.max_output_tokens } : {}),
      supports_thinking: m.supports_thinking,
      supports_tools: m.supports_tools,
      supports_vision: (m as { supports_vision?: unknown }).supports_vision === true,
      enabled: p.enabled,
    })),
  );
}

/**
 * A model a user picks must be listed, enabled and of the `kind` the field wants (chat, unless a
 * knowledge base asks for an embedding or rerank model): else 400 validation_failed naming `field`.
 */
export async function requireModel(
  config: ConfigStore,
  ref: string,
  field = 'model',
  kind: ModelInfo['kind'] = 'chat',
): Promise<ModelInfo> {
  const found = (await listModels(config)).find((m) => m.id === ref);
  if (!found)
    throw new ApiError('validation_failed', `${field} must name a configured model <providerId>:<modelId> (no ${ref.slice(0, 120)}).`, {
      field,
    });
  if (!found.enabled) throw new ApiError('validation_failed', `${field} names ${ref}, whose provider is disabled.`, { field });
  if (found.kind !== kind)
    throw new ApiError('validation_failed', `${field} must name a ${kind} model; ${ref} is marked as a ${found.kind} model.`, { field });
  return found;
}
