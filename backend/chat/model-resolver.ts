import type { ConfigStore } from '../config/config-store.js';
import type { ModelEntry } from '../config/config-api.js';
import { ApiError } from '../http/errors.js';
import type { Endpoint, Protocol } from '../llm/llm-types.js';
import { ProfileSchema, type Profile } from '../profiles/profile-api.js';
import type { ProfileStore } from '../profiles/profile-store.js';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import type { ThinkingOverride } from './chat-types.js';

/** Context window assumed for a model entry without one. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
const DEFAULT_MAX_TOKENS = 8192;

/** The stores a model resolves from: the workspace's profile, then config.yaml. */
export interface ModelStores {
  config: ConfigStore;
  profiles: ProfileStore;
  workspaces: WorkspaceStore;
}

export interface ResolvedModel {
  /** `<providerId>:<modelId>` */
  ref: string;
  modelId: string;
  protocol: Protocol;
  endpoint: Endpoint;
  entry: ModelEntry | undefined;
  contextWindow: number;
  maxTokens: number;
  thinkingBudget?: number;
  offerTools: boolean;
  profile: Profile;
  /** The workspace's `instructions` (DESIGN 7), appended to the system prompt. */
  instructions: string;
}

export interface ModelOverrides {
  /** `<providerId>:<modelId>`: the session's choice (or a regenerate's), ahead of the profile's. */
  model?: string;
  thinking?: ThinkingOverride;
  /** The request field that named `model`: a bad one is then 400 validation_failed on it. */
  field?: string;
}

/**
 * The workspace's profile decides the model and how a turn runs (DESIGN 6, "How a profile runs a
 * turn"); a session override comes first (DESIGN 7).
 */
export async function resolveModel(stores: ModelStores, workspaceId: string, overrides: ModelOverrides = {}): Promise<ResolvedModel> {
  // A model the user picked that no longer resolves is their request's fault, not the profile's.
  const noModel = (message: string, field?: string) =>
    overrides.model && field === 'model'
      ? new ApiError('validation_failed', message, { field: overrides.field ?? 'model' })
      : new ApiError('no_model', message, field ? { field } : {});
  const workspace = await stores.workspaces.get(workspaceId);
  if (!workspace) throw new ApiError('not_found', `No workspace with id ${workspaceId}.`);
  const { config } = stores;
  await config.refresh();
  let profile: Profile = ProfileSchema.parse({});
  if (workspace.profile_id) {
    const view = await stores.profiles.get(workspace.profile_id);
    if (!view) throw noModel(`The workspace's profile ${workspace.profile_id} does not exist.`, 'profile_id');
    profile = ProfileSchema.parse({ ...view, model: view.model_is_default ? undefined : (view.model ?? undefined) });
  }
  if (overrides.thinking) {
    profile = { ...profile, thinking: { ...profile.thinking, ...overrides.thinking } };
  }
  const ref = overrides.model ?? profile.model ?? config.effectiveDefault();
  if (!ref) {
    throw noModel(
      'No model: the profile names none and no default is set (config.yaml defaults.provider/defaults.model or the -model flag).',
      'model',
    );
  }
  const colon = ref.indexOf(':');
  const providerId = colon < 0 ? ref : ref.slice(0, colon);
  const modelId = colon < 0 ? '' : ref.slice(colon + 1);
  if (!modelId) throw noModel(`The model ${ref} must have the form <providerId>:<modelId>.`, 'model');
  const provider = config.snapshot().providers.find((p) => p.id === providerId);
  if (!provider) throw noModel(`The model ${ref} names provider ${providerId}, which is not configured.`, 'model');
  if (!provider.enabled) throw noModel(`The provider ${providerId} of model ${ref} is disabled.`, 'model');
  const resolved = config.resolved(provider);
  if (!resolved.base_url) throw noModel(`The provider ${providerId} has no base_url (set it or ${'<PROVIDER>'}_BASE_URL).`, 'base_url');
  const entry = provider.models.find((m) => m.id === modelId);
  if (!entry && overrides.model) throw noModel(`The provider ${providerId} lists no model ${modelId}.`, 'model');
  const contextWindow = entry?.context_window ?? DEFAULT_CONTEXT_WINDOW;
  let maxTokens = entry?.max_output_tokens ?? DEFAULT_MAX_TOKENS;
  let thinkingBudget: number | undefined;
  if (profile.thinking.enabled && (entry?.supports_thinking ?? true)) {
    // Native needs 1024 <= budget_tokens < max_tokens.
    if (!entry?.max_output_tokens) maxTokens = Math.max(maxTokens, profile.thinking.budget + DEFAULT_MAX_TOKENS);
    thinkingBudget = Math.max(1024, Math.min(profile.thinking.budget, maxTokens - 1));
    if (thinkingBudget >= maxTokens) maxTokens = thinkingBudget + 1024;
  }
  return {
    ref,
    modelId,
    protocol: provider.type,
    endpoint: { baseUrl: resolved.base_url.replace(/\/+$/, ''), apiKey: resolved.api_key ?? '' },
    entry,
    contextWindow,
    maxTokens,
    thinkingBudget,
    offerTools: entry ? entry.supports_tools : true,
    profile,
    instructions: typeof workspace.instructions === 'string' ? workspace.instructions : '',
  };
}

/** `language`: zh or en asks for replies in that language; system adds nothing. */
export function languageLine(language: Profile['language']): string {
  switch (language) {
    case 'zh':
      return 'Always reply in Simplified Chinese (简体中文).';
    case 'en':
      return 'Always reply in English.';
    case 'system':
      return '';
  }
}
