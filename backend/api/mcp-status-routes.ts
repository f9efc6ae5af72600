import { Router } from 'express';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { ApiError } from '../http/errors.js';
import type { McpManager } from '../mcp/mcp-manager.js';
import { checkWorkspaceId } from './workspace-routes.js';

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
  return router;
}
