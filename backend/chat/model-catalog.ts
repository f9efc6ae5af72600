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
      context_window: m.context_window ?? DEFAULT_CONTEXT_WINDOW,
      ...(m.max_output_tokens ? { max_output_tokens: m.max_output_tokens } : {}),
      supports_thinking: m.supports_thinking,
      supports_tools: m.supports_tools,
      supports_vision: (m as { supports_vision?: unknown }).supports_vision === true,
      enabled: p.enabled,
    })),
  );
}

/** A model a user picks must be listed and enabled: else 400 validation_failed naming `field`. */
export async function requireModel(config: ConfigStore, ref: string, field = 'model'): Promise<ModelInfo> {
  const found = (await listModels(config)).find((m) => m.id === ref);
  if (!found)
    throw new ApiError('validation_failed', `${field} must name a configured model <providerId>:<modelId> (no ${ref.slice(0, 120)}).`, {
      field,
    });
  if (!found.enabled) throw new ApiError('validation_failed', `${field} names ${ref}, whose provider is disabled.`, { field });
  return found;
}
