import type { RoutePolicy } from '../auth/route-policy.js';

/**
 * Who may call each route (DESIGN 16), keyed exactly as the router declares it: `METHOD /path`.
 * `public` routes answer without a credential; `member` routes any paired device; `owner` routes
 * only an owner (403 `owner_required` otherwise). A route missing here is owner-only, and a test
 * compares this table with the routes the app really has, so a new route needs a decision here.
 *
 * A member chats, uses workspaces, sessions, attachments and tools as configured, and reads the
 * settings (keys masked); it changes no provider, profile, tool server, skill, backup, device,
 * invite or pairing, and does not read the service log (tool servers' output lands there).
 */
export const ROUTE_ROLES: RoutePolicy = {
  // Public: recognising the backend, pairing, the sign-in callback from an authorization server.
  'GET /health': 'public',
  'GET /api/version': 'public',
  'GET /api/pairing/status': 'public',
  'POST /api/pairing/claim': 'public',
  'POST /api/pairing/join': 'public',
  'GET /api/mcp/oauth/callback': 'public',

  // Settings: members read (keys are masked by the routes), owners change.
  'GET /api/config/providers': 'member',
  'GET /api/config/providers/:id': 'member',
  'POST /api/config/providers': 'owner',
  'PUT /api/config/providers/:id': 'owner',
  'DELETE /api/config/providers/:id': 'owner',
  'PUT /api/config/defaults': 'owner',
  // Sends the stored key to the provider and may import models into config.yaml.
  'POST /api/config/providers/:id/test': 'owner',
  // Web search settings: members read them (keys masked); the providers, keys, approval and
  // web_fetch.allow_hosts (which private hosts a page read may reach) are the owner's, and Test
  // spends the stored keys.
  'GET /api/config/web': 'member',
  'PUT /api/config/web': 'owner',
  'POST /api/config/web/test': 'owner',
  'GET /api/models': 'member',
  'GET /api/profiles': 'member',
  'GET /api/profiles/:id': 'member',
  'POST /api/profiles': 'owner',
  'PUT /api/profiles/:id': 'owner',
  'DELETE /api/profiles/:id': 'owner',
  'GET /api/skills': 'member',
  'GET /api/skills/:name': 'member',
  'POST /api/skills': 'owner',
  'PUT /api/skills/:name': 'owner',
  'DELETE /api/skills/:name': 'owner',

  // Tool servers: a server's command runs programs on this host.
  'GET /api/mcp/global': 'member',
  'PUT /api/mcp/global': 'owner',
  'POST /api/mcp/global/servers': 'owner',
  'PUT /api/mcp/global/servers/:name': 'owner',
  'DELETE /api/mcp/global/servers/:name': 'owner',
  'GET /api/workspaces/:id/mcp': 'member',
  'PUT /api/workspaces/:id/mcp': 'owner',
  'POST /api/workspaces/:id/mcp/servers': 'owner',
  'PUT /api/workspaces/:id/mcp/servers/:name': 'owner',
  'DELETE /api/workspaces/:id/mcp/servers/:name': 'owner',
  'GET /api/mcp/status': 'member',
  // Starting a configured server (and its sign-in) is using tools as configured.
  'POST /api/mcp/status/check': 'member',
  'POST /api/mcp/oauth/sign-out': 'owner',
  'GET /api/workspaces/:id/mcp/prompts': 'member',
  'POST /api/workspaces/:id/mcp/prompts/get': 'member',
  'GET /api/workspaces/:id/mcp/resources': 'member',

  // Workspaces, sessions, turns, attachments, branches, import and export: what a member is for.
  'GET /api/workspaces': 'member',
  'POST /api/workspaces': 'member',
  'GET /api/workspaces/:id': 'member',
  'PUT /api/workspaces/:id': 'member',
  'DELETE /api/workspaces/:id': 'member',
  'GET /api/workspaces/:id/sessions': 'member',
  'POST /api/workspaces/:id/sessions': 'member',
  'GET /api/workspaces/:id/sessions/:sid': 'member',
  'PATCH /api/workspaces/:id/sessions/:sid': 'member',
  'DELETE /api/workspaces/:id/sessions/:sid': 'member',
  'POST /api/workspaces/:id/sessions/:sid/messages': 'member',
  'POST /api/workspaces/:id/sessions/:sid/turns/:tid/cancel': 'member',
  'POST /api/workspaces/:id/sessions/:sid/turns/:tid/approvals': 'member',
  'GET /api/search': 'member',
  'POST /api/workspaces/:id/sessions/:sid/attachments': 'member',
  'GET /api/workspaces/:id/sessions/:sid/attachments/:aid': 'member',
  'GET /api/workspaces/:id/sessions/:sid/messages/:mid/siblings': 'member',
  'POST /api/workspaces/:id/sessions/:sid/messages/:mid/regenerate': 'member',
  'PUT /api/workspaces/:id/sessions/:sid/active': 'member',
  'POST /api/workspaces/:id/sessions/:sid/fork': 'member',
  'GET /api/workspaces/:id/sessions/:sid/export': 'member',
  'POST /api/workspaces/:id/sessions/import': 'member',
  'GET /api/swap/tokens': 'member',

  // Knowledge bases (DESIGN 13): members use them (list, read, search, add files, URLs and notes,
  // job control) as they use workspaces; creating, changing models, deleting a KB and adding a
  // folder (it reads the backend machine's disk) are the owner's.
  'GET /api/knowledge': 'member',
  'POST /api/knowledge': 'owner',
  'GET /api/knowledge/:kb': 'member',
  'PATCH /api/knowledge/:kb': 'owner',
  'DELETE /api/knowledge/:kb': 'owner',
  'GET /api/knowledge/:kb/sources': 'member',
  // A folder body is refused to members by the route itself (403 owner_required).
  'POST /api/knowledge/:kb/sources': 'member',
  'DELETE /api/knowledge/:kb/sources/:sid': 'member',
  'POST /api/knowledge/:kb/sources/:sid/retry': 'member',
  'POST /api/knowledge/:kb/sources/:sid/pause': 'member',
  'POST /api/knowledge/:kb/sources/:sid/resume': 'member',
  'GET /api/knowledge/:kb/sources/:sid/chunks': 'member',
  'GET /api/knowledge/:kb/sources/:sid/file': 'member',
  'POST /api/knowledge/:kb/search': 'member',

  // The operator's view and the node's trust state.
  'GET /api/logs': 'owner',
  'GET /api/backups': 'member',
  'POST /api/backups': 'owner',
  'DELETE /api/backups/:name': 'owner',
  'POST /api/backups/:name/restore': 'owner',
  'GET /api/selfhost/devices': 'member',
  'DELETE /api/selfhost/devices/:id': 'owner',
  'POST /api/selfhost/devices/invite': 'owner',
  // A device renewing its own credential changes nobody else's access.
  'POST /api/selfhost/credential/rotate': 'member',
  'POST /api/selfhost/pairing/reset': 'owner',
};
