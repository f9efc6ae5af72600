import type { McpView } from '../../../backend/mcp/mcp-api.js';
import type { FileProblem } from '../../../backend/data/data-api.js';
import type { Profile } from '../../../backend/profiles/profile-api.js';
import type { SkillDocument, SkillSummary } from '../../../backend/skills/skill-api.js';
import type { WorkspaceEntry } from '../../../backend/workspaces/workspace-api.js';

export type { McpView, SkillDocument, SkillSummary, WorkspaceEntry };

/** The backend's ProfileView, picked key by key (Omit over a loose schema loses the key types). */
export type ProfileView = Pick<
  Profile,
  'system_prompt' | 'language' | 'timeout_seconds' | 'thinking' | 'cache' | 'compression' | 'web_search'
> & {
  id: string;
  model: string | null;
  model_is_default: boolean;
  errors: FileProblem[];
};

/** A list answer: either the bare array or `{<key>: [...]}`. */
export function listOf<T>(data: unknown, key: string): T[] {
  if (Array.isArray(data)) return data as T[];
  const inner = (data as Record<string, unknown> | undefined)?.[key];
  return Array.isArray(inner) ? (inner as T[]) : [];
}

export function fileErrors(data: unknown): { file: string; line: number | null; message: string }[] {
  const errors = (data as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) ? errors.filter((e) => typeof e === 'object' && e !== null && 'message' in e) : [];
}

export const path = {
  profiles: '/api/profiles',
  profile: (id: string) => `/api/profiles/${encodeURIComponent(id)}`,
  workspaces: '/api/workspaces',
  workspace: (id: string) => `/api/workspaces/${encodeURIComponent(id)}`,
  globalMcp: '/api/mcp/global',
  workspaceMcp: (id: string) => `/api/workspaces/${encodeURIComponent(id)}/mcp`,
  skills: '/api/skills',
  skill: (name: string) => `/api/skills/${encodeURIComponent(name)}`,
};
