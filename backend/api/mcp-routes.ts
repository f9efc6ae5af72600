import { Router, type Request } from 'express';
import { z } from 'zod';
import type { DataPaths } from '../data/data-dir.js';
import type { McpEntryStore } from '../mcp/mcp-entry-store.js';
import type { McpStore } from '../mcp/mcp-store.js';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { parseBody } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import type { McpScope } from '../mcp/mcp-entry-store.js';
import { McpFileSchema } from '../mcp/mcp-api.js';
import type { WsHub } from '../ws/ws-hub.js';
import { checkWorkspaceId } from './workspace-routes.js';

const CreateServerSchema = z.object(
  {
    name: z.string({ error: 'name is required' }).trim().min(1, 'name is required'),
    server: z.unknown(),
  },
  { error: 'the body must be {name, server}' },
);

/** `If-None-Match: *` on a PUT means "create only": never replace what is there. */
const createOnly = (req: Request) => req.get('if-none-match')?.trim() === '*';

/**
 * Tool-server files: global_mcp_servers.json (+ read-only `cli`) and workspaces/<id>/mcp_config.json.
 * Whole-file GET/PUT, plus one-server routes: POST …/servers creates (409 `already_exists` when the
 * name is taken), PUT …/servers/:name replaces (or, with `If-None-Match: *`, creates only), DELETE
 * removes; every replaced or removed entry is kept in trash/.
 */
export function mcpRoutes(
  stores: { mcp: McpStore; mcpEntries: McpEntryStore; paths: DataPaths; workspaces: WorkspaceStore },
  ws: WsHub,
): Router {
  const router = Router();
  const { mcp, mcpEntries, paths } = stores;
  const scopeOf = async (rawId: string | undefined): Promise<McpScope> => {
    if (rawId === undefined) return { file: paths.globalMcp, global: true, label: 'global' };
    const id = checkWorkspaceId(rawId);
    if (!(await stores.workspaces.get(id))) throw new ApiError('not_found', `No workspace with id ${id}.`);
    return { file: paths.workspaceMcp(id), global: false, label: id };
  };
  const changed = (scope: McpScope) => ws.configChanged('mcp', scope.global ? 'global' : scope.label);

  for (const [base, idOf] of [
    ['/api/mcp/global', () => undefined],
    ['/api/workspaces/:id/mcp', (req: Request) => String(req.params.id)],
  ] as const) {
    router.get(base, async (req, res) => {
      const scope = await scopeOf(idOf(req));
      res.json(await mcp.get(scope.file, scope.global));
    });
    router.put(base, async (req, res) => {
      const scope = await scopeOf(idOf(req));
      await mcpEntries.putFile(scope, parseBody(McpFileSchema, req.body));
      changed(scope);
      res.json(await mcp.get(scope.file, scope.global));
    });
    router.post(`${base}/servers`, async (req, res) => {
      const scope = await scopeOf(idOf(req));
      const { name, server } = parseBody(CreateServerSchema, req.body);
      await mcpEntries.create(scope, name, server);
      changed(scope);
      res.status(201).json(await mcp.get(scope.file, scope.global));
    });
    router.put(`${base}/servers/:name`, async (req, res) => {
      const scope = await scopeOf(idOf(req));
      const name = String(req.params.name);
      if (createOnly(req)) {
        await mcpEntries.create(scope, name, req.body);
        changed(scope);
        res.status(201).json(await mcp.get(scope.file, scope.global));
        return;
      }
      const { trashed_to } = await mcpEntries.replace(scope, name, req.body);
      changed(scope);
      res.json({ ...(await mcp.get(scope.file, scope.global)), trashed_to });
    });
    router.delete(`${base}/servers/:name`, async (req, res) => {
      const scope = await scopeOf(idOf(req));
      const name = String(req.params.name);
      const { trashed_to } = await mcpEntries.remove(scope, name);
      changed(scope);
      res.json({ deleted: name, trashed_to });
    });
  }
  return router;
}
