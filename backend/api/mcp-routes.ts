import { Router } from 'express';
import type { ManagedStores } from '../config/managed-stores.js';
import { parseBody } from '../config/schema-errors.js';
import { ApiError } from '../http/errors.js';
import { McpFileSchema } from '../mcp/mcp-schema.js';
import type { WsHub } from '../ws/ws-hub.js';
import { checkWorkspaceId } from './workspace-routes.js';

/** Tool-server files: global_mcp_servers.json (+ read-only `cli`) and workspaces/<id>/mcp_config.json. */
export function mcpRoutes(stores: ManagedStores, ws: WsHub): Router {
  const router = Router();
  const { mcp, paths } = stores;
  const workspaceFile = async (rawId: string) => {
    const id = checkWorkspaceId(rawId);
    if (!(await stores.workspaces.get(id))) throw new ApiError('not_found', `No workspace with id ${id}.`);
    return paths.workspaceMcp(id);
  };
  router.get('/api/mcp/global', async (_req, res) => {
    res.json(await mcp.get(paths.globalMcp, true));
  });
  router.put('/api/mcp/global', async (req, res) => {
    const view = await mcp.put(paths.globalMcp, true, parseBody(McpFileSchema, req.body));
    ws.configChanged('mcp', 'global');
    res.json(view);
  });
  router.get('/api/workspaces/:id/mcp', async (req, res) => {
    res.json(await mcp.get(await workspaceFile(req.params.id), false));
  });
  router.put('/api/workspaces/:id/mcp', async (req, res) => {
    const file = await workspaceFile(req.params.id);
    const view = await mcp.put(file, false, parseBody(McpFileSchema, req.body));
    ws.configChanged('mcp', req.params.id);
    res.json(view);
  });
  return router;
}
