import { Router } from 'express';
import type { ConfigStore } from '../config/config-store.js';
import type { ProfileStore } from '../profiles/profile-store.js';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { isSafeName } from '../data/safe-name.js';
import { parseBody } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import { ProfileInputSchema, type Profile } from '../profiles/profile-api.js';
import type { WsHub } from '../ws/ws-hub.js';

interface ProfileRouteStores {
  config: ConfigStore;
  profiles: ProfileStore;
  workspaces: WorkspaceStore;
}

export function checkProfileId(id: unknown): string {
  if (typeof id !== 'string' || !isSafeName(id)) {
    throw new ApiError('validation_failed', 'id must be 1-64 letters, digits, ".", "_" or "-" without ".." or path separators.', {
      field: 'id',
    });
  }
  return id;
}

/** Cross-resource rules: the model must exist, and thinking needs a model that supports it. */
async function checkModel(stores: ProfileRouteStores, profile: Profile): Promise<void> {
  const { config } = stores;
  await config.refresh();
  const ref = profile.model ?? config.effectiveDefault();
  const [providerId, ...rest] = (ref ?? '').split(':');
  const provider = config.snapshot().providers.find((p) => p.id === providerId);
  const model = provider?.models.find((m) => m.id === rest.join(':'));
  if (profile.model !== undefined && !model) {
    throw new ApiError('validation_failed', `model must name a configured provider and one of its models (${profile.model} is unknown).`, {
      field: 'model',
    });
  }
  if (profile.thinking.enabled && !model?.supports_thinking) {
    throw new ApiError(
      'validation_failed',
      `thinking.enabled needs a model with supports_thinking (${ref ?? 'no model'} does not support it).`,
      { field: 'thinking.enabled' },
    );
  }
}

/** profiles/<id>.yaml through the API: list, get, create (POST), create-or-replace (PUT), delete. */
export function profileRoutes(stores: ProfileRouteStores, ws: WsHub): Router {
  const router = Router();
  const write = async (id: string, body: unknown, mode: 'create' | 'upsert') => {
    const profile = parseBody(ProfileInputSchema, body);
    await checkModel(stores, profile);
    const { id: _id, ...raw } = body as Record<string, unknown>;
    const result = await stores.profiles.put(id, raw, mode);
    ws.configChanged('profiles', id);
    return result;
  };
  router.get('/api/profiles', async (_req, res) => {
    await stores.config.refresh(); // the effective default model may have been edited by hand
    res.json({ profiles: await stores.profiles.list() });
  });
  router.get('/api/profiles/:id', async (req, res) => {
    await stores.config.refresh();
    const profile = await stores.profiles.get(checkProfileId(req.params.id));
    if (!profile) throw new ApiError('not_found', `No profile with id ${req.params.id}.`);
    res.json(profile);
  });
  router.post('/api/profiles', async (req, res) => {
    const id = checkProfileId((req.body as { id?: unknown } | undefined)?.id);
    const { profile } = await write(id, req.body, 'create');
    res.status(201).json(profile);
  });
  router.put('/api/profiles/:id', async (req, res) => {
    const id = checkProfileId(req.params.id);
    const bodyId = (req.body as { id?: unknown } | undefined)?.id;
    if (bodyId !== undefined && bodyId !== id) throw new ApiError('validation_failed', `id must match the URL (${id}).`, { field: 'id' });
    const { created, profile } = await write(id, req.body, 'upsert');
    res.status(created ? 201 : 200).json(profile);
  });
  router.delete('/api/profiles/:id', async (req, res) => {
    const id = checkProfileId(req.params.id);
    const users = await stores.workspaces.usedBy(id);
    if (users.length > 0) {
      const names = users.map((w) => `${w.name} (${w.id})`).join(', ');
      throw new ApiError('conflict', `Profile ${id} is used by workspaces: ${names}. Bind them to another profile first.`, { field: 'id' });
    }
    await stores.profiles.delete(id);
    ws.configChanged('profiles', id);
    res.status(204).end();
  });
  return router;
}
