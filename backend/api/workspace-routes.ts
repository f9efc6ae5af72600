import { Router } from 'express';
import type { ProfileStore } from '../profiles/profile-store.js';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { parseBody } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import { WorkspaceCreateSchema, WorkspaceUpdateSchema } from '../workspaces/workspace-api.js';
import type { WsHub } from '../ws/ws-hub.js';

const WORKSPACE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Workspace ids become folder names: anything that could leave workspaces/ is a 400. */
export function checkWorkspaceId(id: string): string {
  if (!WORKSPACE_ID.test(id)) {
    throw new ApiError('validation_failed', 'id must be 1-64 letters, digits, "_" or "-" (no "..", path separators or NUL).', {
      field: 'id',
    });
  }
  return id;
}

interface WorkspaceRouteStores {
  profiles: ProfileStore;
  workspaces: WorkspaceStore;
}

async function checkProfile(stores: WorkspaceRouteStores, profileId: string | null | undefined): Promise<void> {
  if (profileId && !(await stores.profiles.exists(profileId))) {
    throw new ApiError('validation_failed', `profile_id must name an existing profile (no ${profileId}).`, { field: 'profile_id' });
  }
}

/** workspaces.json + workspaces/<id>/: list, create (id generated), get, rename/bind, delete to trash. */
export function workspaceRoutes(
  stores: WorkspaceRouteStores,
  ws: WsHub,
  /** Runs the removal once the workspace's running turns have ended. */
  deleting: <T>(id: string, remove: () => Promise<T>) => Promise<T> = (_id, remove) => remove(),
  /** DESIGN 13: each knowledge base named must exist (a 400 naming `knowledge_bases[i]`); returns the ids without duplicates. */
  checkKnowledgeBases: (ids: string[], field: string) => Promise<string[]> = async (ids, field) => {
    if (ids.length > 0) throw new ApiError('validation_failed', `${field}: this backend has no knowledge bases.`, { field });
    return ids;
  },
): Router {
  const router = Router();
  router.get('/api/workspaces', async (_req, res) => {
    res.json(await stores.workspaces.list());
  });
  router.post('/api/workspaces', async (req, res) => {
    const input = parseBody(WorkspaceCreateSchema, req.body);
    await checkProfile(stores, input.profile_id);
    if (input.knowledge_bases) input.knowledge_bases = await checkKnowledgeBases(input.knowledge_bases, 'knowledge_bases');
    const workspace = await stores.workspaces.create(input);
    ws.configChanged('workspaces', workspace.id);
    res.status(201).json(workspace);
  });
  router.get('/api/workspaces/:id', async (req, res) => {
    const workspace = await stores.workspaces.get(checkWorkspaceId(req.params.id));
    if (!workspace) throw new ApiError('not_found', `No workspace with id ${req.params.id}.`);
    res.json(workspace);
  });
  router.put('/api/workspaces/:id', async (req, res) => {
    const id = checkWorkspaceId(req.params.id);
    const input = parseBody(WorkspaceUpdateSchema, req.body);
    await checkProfile(stores, input.profile_id);
    if (input.knowledge_bases) input.knowledge_bases = await checkKnowledgeBases(input.knowledge_bases, 'knowledge_bases');
    const workspace = await stores.workspaces.update(id, input);
    ws.configChanged('workspaces', id);
    res.json(workspace);
  });
  router.delete('/api/workspaces/:id', async (req, res) => {
    const id = checkWorkspaceId(req.params.id);
    if (!(await stores.workspaces.get(id))) throw new ApiError('not_found', `No workspace with id ${id}.`);
    const trashed = await deleting(id, () => stores.workspaces.delete(id));
    ws.configChanged('workspaces', id);
    res.json({ deleted: id, trashed_to: trashed });
  });
  return router;
}
