import { Router, type Response } from 'express';
import { z } from 'zod';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { parseBody } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import type { Logger } from '../log/logger.js';
import type { McpOAuth } from '../mcp/oauth-client.js';
import type { McpManager } from '../mcp/mcp-manager.js';
import { knownWorkspace } from './mcp-status-routes.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res: Response, status: number, title: string, text: string): void {
  res
    .status(status)
    .set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
    .set('Cache-Control', 'no-store')
    .type('html')
    .send(
      `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
        `<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;line-height:1.5">` +
        `<h1 style="font-size:1.4rem">${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`,
    );
}

/**
 * `GET /api/mcp/oauth/callback`: where the browser returns from a tool server's sign-in page. It
 * carries no credential (the authorization server sends it), so it is public; the one-time
 * `state` of a flow this service started is what it needs, and codes are useless without that
 * flow's PKCE verifier. Never echoes the code or logs it.
 */
export function mcpOAuthCallbackRoute(oauth: McpOAuth, logger: Logger): Router {
  const router = Router();
  router.get('/api/mcp/oauth/callback', async (req, res) => {
    const { code, state, error } = req.query;
    if (typeof state !== 'string' || !state)
      return page(res, 400, 'Sign-in failed', 'The sign-in link has no state. Start the sign-in again.');
    if (typeof error === 'string') {
      oauth.abandon(state);
      return page(res, 400, 'Sign-in cancelled', `The server answered: ${error.slice(0, 100)}. Start the sign-in again from the app.`);
    }
    if (typeof code !== 'string' || !code)
      return page(res, 400, 'Sign-in failed', 'The sign-in link has no code. Start the sign-in again.');
    try {
      const { server } = await oauth.complete(state, code);
      logger.info(`tool server sign-in completed for ${server}`);
      page(res, 200, 'Signed in', `Signed in to ${server}. You can close this tab and return to the app.`);
    } catch (err) {
      logger.info(`tool server sign-in failed: ${(err as Error).message}`);
      page(res, 400, 'Sign-in failed', `${(err as Error).message}. Start the sign-in again from the app.`);
    }
  });
  return router;
}

const SignOutSchema = z.object({
  name: z.string({ error: 'name is required' }).min(1, 'name is required'),
  workspace: z.string({ error: 'workspace must be a workspace id' }).optional(),
});

/** `POST /api/mcp/oauth/sign-out {name, workspace?}`: forget the server's tokens (credential required). */
export function mcpSignOutRoute(stores: { workspaces: WorkspaceStore }, manager: McpManager): Router {
  const router = Router();
  router.post('/api/mcp/oauth/sign-out', async (req, res) => {
    const { name, workspace } = parseBody(SignOutSchema, req.body);
    const workspaceId = workspace ? await knownWorkspace(stores, workspace) : undefined;
    if (!(await manager.signOut(name, workspaceId)))
      throw new ApiError('not_found', `No remote tool server named "${name}".`, { field: 'name' });
    res.json({ signed_out: name });
  });
  return router;
}
