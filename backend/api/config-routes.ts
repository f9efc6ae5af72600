import { Router } from 'express';
import type { ConfigStore } from '../config/config-store.js';
import type { ConfigWriter } from '../config/config-writer.js';
import { checkProvider } from '../config/provider-check.js';
import { DefaultsInputSchema, ProviderInputSchema, ProviderTestSchema, type ProviderInput } from '../config/config-api.js';
import { parseBody } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import type { WsHub } from '../ws/ws-hub.js';

/** Provider configuration (read side). Re-reads config.yaml so hand edits show up. */
export function providerReadRoutes(config: ConfigStore): Router {
  const router = Router();
  router.get('/api/config/providers', async (_req, res) => {
    await config.refresh();
    res.json(config.providersResponse());
  });
  router.get('/api/config/providers/:id', async (req, res) => {
    await config.refresh();
    const provider = config.snapshot().providers.find((p) => p.id === req.params.id);
    if (!provider) throw new ApiError('not_found', `No provider with id ${req.params.id}.`);
    res.json(config.masked(provider));
  });
  return router;
}

function providerInput(body: unknown, id?: string): ProviderInput & { id: string } {
  const input = parseBody(ProviderInputSchema, body);
  if (id !== undefined && input.id !== undefined && input.id !== id) {
    throw new ApiError('validation_failed', `id must match the URL (${id}); provider ids cannot be renamed.`, { field: 'id' });
  }
  const finalId = id ?? input.id;
  if (finalId === undefined) throw new ApiError('validation_failed', 'id is required.', { field: 'id' });
  return { ...input, id: finalId };
}

/** Provider create/replace/delete, defaults, and the provider check (DESIGN 4). */
export function providerWriteRoutes(deps: { config: ConfigStore; writer: ConfigWriter; ws: WsHub }): Router {
  const { config, writer, ws } = deps;
  const router = Router();
  router.post('/api/config/providers', async (req, res) => {
    const provider = await writer.createProvider(providerInput(req.body));
    ws.configChanged('providers', provider.id);
    res.status(201).json(provider);
  });
  router.put('/api/config/providers/:id', async (req, res) => {
    const provider = await writer.replaceProvider(providerInput(req.body, req.params.id));
    ws.configChanged('providers', provider.id);
    res.json(provider);
  });
  router.delete('/api/config/providers/:id', async (req, res) => {
    await writer.deleteProvider(req.params.id);
    ws.configChanged('providers', req.params.id);
    res.status(204).end();
  });
  router.put('/api/config/defaults', async (req, res) => {
    const input = parseBody(DefaultsInputSchema, req.body);
    await writer.setDefaults(input);
    ws.configChanged('defaults', null);
    const { defaults, effective_default } = config.providersResponse();
    res.json({ defaults, effective_default });
  });
  router.post('/api/config/providers/:id/test', async (req, res) => {
    const options = parseBody(ProviderTestSchema, req.body ?? {});
    await config.refresh();
    const provider = config.snapshot().providers.find((p) => p.id === req.params.id);
    if (!provider) throw new ApiError('not_found', `No provider with id ${req.params.id}.`);
    const { remote, ...result } = await checkProvider(config.resolved(provider), options.timeout_ms);
    if (result.ok && options.import_models) {
      result.imported = await writer.mergeModels(provider.id, remote);
      if (result.imported.length > 0) ws.configChanged('providers', provider.id);
    }
    res.json(result);
  });
  return router;
}
