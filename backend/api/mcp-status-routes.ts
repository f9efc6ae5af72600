import { Router } from 'express';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { ApiError } from '../http/errors.js';
import type { McpManager } from '../mcp/mcp-manager.js';
import { checkWorkspaceId } from './workspace-routes.js';
import { parseBody } from '../http/validation.js';
import { z } from 'zod';

const CheckSchema = z.object({
  name: z.string({ error: 'name is required' }).min(1, 'name is required'),
  workspace: z.string({ error: 'workspace must be a workspace id' }).optional(),
});

/** A workspace id from a request that must exist (400 when malformed, 404 when unknown). */
export async function knownWorkspace(stores: { workspaces: WorkspaceStore }, raw: string): Promise<string> {
  let id: string;
  try {
    id = checkWorkspaceId(raw);
  } catch (err) {
    throw new ApiError('validation_failed', `workspace: ${(err as Error).message}`, { field: 'workspace' });
  }
  if (!(await stores.workspaces.get(id))) throw new ApiError('not_found', `No workspace with id ${id}.`);
  return id;
}

/**
 * `GET /api/mcp/status?workspace=ID`: the servers a turn in that workspace would use (global merged
 * with the workspace's, plus `cli`), each with its state, tools and the failure in words. Without
 * `workspace`: the global servers. Reading the status never starts a server.
 */
export function mcpStatusRoutes(stores: { workspaces: WorkspaceStore }, manager: McpManager): Router {
  const router = Router();
  router.get('/api/mcp/status', async (req, res) => {
    const raw = req.query.workspace;
    if (raw !== undefined && typeof raw !== 'string') {
      throw new ApiError('validation_failed', 'workspace must be a single workspace id.', { field: 'workspace' });
    }
    let workspaceId: string | undefined;
    if (raw !== undefined && raw !== '') {
      try {
        workspaceId = checkWorkspaceId(raw);
      } catch (err) {
        throw new ApiError('validation_failed', `workspace: ${(err as Error).message}`, { field: 'workspace' });
      }
      if (!(await stores.workspaces.get(workspaceId))) throw new ApiError('not_found', `No workspace with id ${workspaceId}.`);
    }
    res.json({ workspace_id: workspaceId ?? null, servers: await manager.status(workspaceId) });
  });
  // "Connect" on the tool-servers page: start one server now and answer its status.
  router.post('/api/mcp/status/check', async (req, res) => {
    const { name, workspace } = parseBody(CheckSchema, req.body);
    const workspaceId = workspace ? await knownWorkspace(stores, workspace) : undefined;
    const status = await manager.check(name, workspaceId);
    if (!status) throw new ApiError('not_found', `No tool server named "${name}".`);
    res.json(status);
  });
  return router;
}
