import { useResource } from '../api/session';
import { listOf, path, type ProfileView, type WorkspaceEntry } from '../api/resources';
import type { MaskedProvider, ProvidersResponse } from '../providers/provider-types';

export interface ModelInfo {
  loading: boolean;
  /** No provider configured at all. */
  noProvider: boolean;
  /** `provider:model` the workspace's turns use, or null when none resolves. */
  model: string | null;
  /** The profile that decided it (null: the effective default). */
  profileId: string | null;
  contextWindow: number | null;
  compression: { enabled: boolean; threshold_percent: number };
  /** The profile's thinking switch (a session may override it). */
  thinking: boolean;
  /** The profile's web search switch (a session may override it, DESIGN 14). */
  webSearch: boolean;
}

const DEFAULT_COMPRESSION = { enabled: true, threshold_percent: 80 };

export function findModel(providers: MaskedProvider[], ref: string | null): { context_window?: number } | undefined {
  if (!ref) return undefined;
  const cut = ref.indexOf(':');
  const provider = providers.find((p) => p.id === ref.slice(0, cut));
  return provider?.models.find((m) => m.id === ref.slice(cut + 1));
}

/** The model, context window and compression threshold of a workspace (its profile, else the defaults). */
export function useModelInfo(workspace: WorkspaceEntry | undefined): ModelInfo {
  const providers = useResource<ProvidersResponse>('/api/config/providers', ['providers', 'defaults']);
  const profileId = workspace?.profile_id ?? null;
  const profile = useResource<ProfileView>(profileId ? path.profile(profileId) : null, ['profiles', 'providers', 'defaults']);
  const list = listOf<MaskedProvider>(providers.data, 'providers');
  const effective = (providers.data as { effective_default?: string | null } | undefined)?.effective_default ?? null;
  const model = profileId ? (profile.data?.model ?? null) : effective;
  return {
    loading: providers.loading || (profileId !== null && profile.loading && !profile.data),
    noProvider: !providers.loading && providers.data !== undefined && list.length === 0,
    model,
    profileId,
    contextWindow: findModel(list, model)?.context_window ?? null,
    compression: profile.data?.compression ?? DEFAULT_COMPRESSION,
    thinking: profile.data?.thinking?.enabled ?? false,
    webSearch: profile.data?.web_search?.enabled ?? false,
  };
}
