import type { Express, RequestHandler } from 'express';
import { ApiError } from '../http/errors.js';
import type { DeviceRole } from '../pairing/pairing-api.js';
import type { PairingService } from '../pairing/pairing-service.js';
import { callingDevice } from './credential.js';

/** Who may call a route: anyone, any paired device, or only an owner (DESIGN 16). */
export type RouteAccess = 'public' | DeviceRole;
/** Keyed `METHOD /path` exactly as the router declares the route (`:name` parameters). */
export type RoutePolicy = Readonly<Record<string, RouteAccess>>;

interface CompiledRule {
  method: string;
  pattern: RegExp;
  access: RouteAccess;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/api/a/:id` → a regex over the request path, matched as the router does (any case, optional `/`). */
function compilePath(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : escapeRegex(segment)))
    .join('/');
  return new RegExp(`^${source}/?$`, 'i');
}

export function compilePolicy(policy: RoutePolicy): CompiledRule[] {
  return Object.entries(policy).map(([key, access]) => {
    const [method, path] = key.split(' ');
    return { method, pattern: compilePath(path), access };
  });
}

/** What `policy` says about a request; a route it does not name is owner-only (deny by default). */
export function accessFor(rules: readonly CompiledRule[], method: string, path: string): RouteAccess {
  const m = method === 'HEAD' ? 'GET' : method;
  // Literal routes before parameterised ones, as a router that declared them first would.
  let found: CompiledRule | undefined;
  for (const rule of rules) {
    if (rule.method !== m || !rule.pattern.test(path)) continue;
    if (!found || rule.pattern.source.split('[^/]+').length < found.pattern.source.split('[^/]+').length) found = rule;
  }
  return found?.access ?? 'owner';
}

/**
 * The one place roles are enforced on HTTP: after `requireCredential`, an owner-only route answers
 * 403 `owner_required` to a member before any handler (or body parser) sees the request.
 */
export function requireRole(pairing: PairingService, policy: RoutePolicy): RequestHandler {
  const rules = compilePolicy(policy);
  return (req, res, next) => {
    // The raw path, as the router matches it (a URL parser would resolve `..` and `%2e%2e` first).
    const path = req.originalUrl.split('?')[0];
    if (accessFor(rules, req.method, path) !== 'owner') return next();
    if (pairing.roleOf(callingDevice(res)) === 'owner') return next();
    next(new ApiError('owner_required'));
  };
}

/** Every `METHOD /path` an express app routes (routers mounted at the root), for the policy test. */
export function listRoutes(app: Express): string[] {
  const out: string[] = [];
  type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
  const walk = (stack: readonly Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods))
          if (method !== '_all') out.push(`${method.toUpperCase()} ${layer.route.path}`);
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return out;
}
