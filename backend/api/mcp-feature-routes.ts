import { Router } from 'express';
import { z } from 'zod';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { parseBody } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import { serverFailureMessage } from '../mcp/mcp-errors.js';
import { getPrompt, listPrompts, listResources } from '../mcp/mcp-features.js';
import type { McpManager } from '../mcp/mcp-manager.js';
import { knownWorkspace } from './mcp-status-routes.js';

const GetPromptSchema = z.object({
  server: z.string({ error: 'server is required' }).min(1, 'server is required'),
  name: z.string({ error: 'name is required' }).min(1, 'name is required'),
  arguments: z
    .record(z.string(), z.string({ error: 'arguments values must be strings' }), { error: 'arguments must map names to strings' })
    .optional(),
});

/** A failure of the server itself: JSON-RPC "invalid params" is the caller's mistake, the rest is upstream. */
export function serverFailure(server: string, err: unknown, field: string): ApiError {
  const code = (err as { code?: unknown })?.code;
  const message = (err as Error)?.message ?? String(err);
  if (code === -32602) return new ApiError('validation_failed', `${field}: ${message}`, { field });
  return new ApiError('upstream_unavailable', serverFailureMessage(server, err));
}

/**
 * DESIGN 9: the prompts and resources of the workspace's tool servers. Listing starts the servers
 * (like a turn does); `problems` names the servers that could not answer, with the reason.
 */
export function mcpFeatureRoutes(stores: { workspaces: WorkspaceStore }, manager: McpManager): Router {
  const router = Router();
  router.get('/api/workspaces/:id/mcp/prompts', async (req, res) => {
    const id = await knownWorkspace(stores, String(req.params.id));
    const { items, problems } = await listPrompts(await manager.started(id));
    res.json({ prompts: items, problems });
  });
  router.post('/api/workspaces/:id/mcp/prompts/get', async (req, res) => {
    const id = await knownWorkspace(stores, String(req.params.id));
    const body = parseBody(GetPromptSchema, req.body);
    const conn = await manager.startedOne(id, body.server);
    if (!conn) throw new ApiError('not_found', `No tool server named "${body.server}" in this workspace.`, { field: 'server' });
    try {
      res.json({ messages: await getPrompt(conn, body.name, body.arguments ?? {}) });
    } catch (err) {
      throw serverFailure(body.server, err, 'arguments');
    }
  });
  router.get('/api/workspaces/:id/mcp/resources', async (req, res) => {
    const id = await knownWorkspace(stores, String(req.params.id));
    const { items, problems } = await listResources(await manager.started(id));
    res.json({ resources: items, problems });
  });
  return router;
}
