import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type { RequestHandler } from 'express';
import { ApiError } from './errors.js';

/** The desktop renderer's origin (custom protocol in the Electron app). */
export const DESKTOP_RENDERER_ORIGIN = 'app://renderer';

export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** Splits a Host header into hostname and port; undefined when it is not a well-formed host. */
export function parseHostHeader(value: string): { hostname: string; port?: string } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  if (!m) return undefined;
  return { hostname: m[1].toLowerCase(), port: m[2] };
}

/**
 * DNS-rebinding defence: on a loopback bind the Host must name the loopback
 * (localhost, *.localhost, 127.0.0.0/8, [::1]); a rebound name like evil.com is refused.
 */
export function isAllowedLoopbackHost(value: string | undefined): boolean {
  if (!value) return false;
  const parsed = parseHostHeader(value);
  if (!parsed) return false;
  const { hostname } = parsed;
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  if (hostname === '[::1]') return true;
  return isIP(hostname) === 4 && hostname.startsWith('127.');
}

export interface OriginPolicy {
  /** True when the listener is bound to a loopback address (Host allow-list applies). */
  loopbackBind: boolean;
  /** Origins allowed besides the listener's own (the desktop renderer, -allow-origin values). */
  extraOrigins: () => readonly string[];
  /** The port the listener actually bound, for its own origins. */
  port: () => number;
  /** True when the listener serves HTTPS (its own origins are https://…). */
  secure?: () => boolean;
}

function ownOrigins(policy: OriginPolicy, headers: IncomingHttpHeaders): string[] {
  const port = policy.port();
  if (policy.loopbackBind) {
    const scheme = policy.secure?.() ? 'https' : 'http';
    return ['localhost', '127.0.0.1', '[::1]'].map((h) => `${scheme}://${h}:${port}`);
  }
  // Off loopback the Host check does not apply, so the page's own origin is its Host.
  return headers.host ? [`http://${headers.host.toLowerCase()}`, `https://${headers.host.toLowerCase()}`] : [];
}

export type GuardVerdict = { ok: true } | { ok: false; error: ApiError };

/** Host and Origin checks shared by HTTP requests and WebSocket upgrades on both listeners. */
export function checkHostAndOrigin(policy: OriginPolicy, headers: IncomingHttpHeaders): GuardVerdict {
  if (policy.loopbackBind && !isAllowedLoopbackHost(headers.host)) {
    return { ok: false, error: new ApiError('forbidden_host') };
  }
  const origin = headers.origin;
  if (origin !== undefined && !isAllowedOrigin(policy, headers, origin)) {
    return { ok: false, error: new ApiError('forbidden_origin') };
  }
  return { ok: true };
}

export function isAllowedOrigin(policy: OriginPolicy, headers: IncomingHttpHeaders, origin: string): boolean {
  // `null` (sandboxed frames, file://, redirects) proves nothing about who is calling.
  if (origin === 'null' || origin === '') return false;
  const o = origin.toLowerCase();
  return ownOrigins(policy, headers).includes(o) || policy.extraOrigins().some((a) => a.toLowerCase() === o);
}

/** Host/Origin guard plus CORS answers for allowed origins only (never `*`). */
export function hostOriginGuard(policy: OriginPolicy): RequestHandler {
  return (req, res, next) => {
    const verdict = checkHostAndOrigin(policy, req.headers);
    if (!verdict.ok) return next(verdict.error);
    const origin = req.headers.origin;
    if (origin) {
      res.set('Access-Control-Allow-Origin', origin);
      res.set('Vary', 'Origin');
      if (req.method === 'OPTIONS') {
        res.set('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE');
        res.set('Access-Control-Allow-Headers', 'Content-Type, Authorization, X-Service-Credential, If-None-Match, X-Filename');
        res.set('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
    }
    next();
  };
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/** Deeper than any document the API takes; far below what recursive serializers survive. */
export const MAX_JSON_DEPTH = 64;

function tooDeep(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > MAX_JSON_DEPTH) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * After the JSON parser: a body nested thousands of levels deep parses fine but overflows the
 * stack of the YAML and JSON writers later (a 500), so it is refused up front.
 */
export const limitJsonDepth: RequestHandler = (req, _res, next) => {
  if (tooDeep(req.body)) return next(new ApiError('bad_request', `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`));
  next();
};

/**
 * The one route whose body is a raw file (DESIGN 8). Still no blind CSRF: it needs the credential
 * in a header and an `X-Filename` header, which no cross-site simple request can send.
 */
export function isRawUpload(method: string, urlPath: string): boolean {
  if (method !== 'POST') return false;
  // Knowledge sources: a file as the raw body, or JSON that the route reads itself (DESIGN 13).
  return (
    /^\/api\/workspaces\/[^/]+\/sessions\/[^/]+\/attachments\/?$/.test(urlPath) || /^\/api\/knowledge\/[^/]+\/sources\/?$/.test(urlPath)
  );
}

/**
 * Bodies must be JSON. A cross-site "simple" request (text/plain, form-encoded) cannot set
 * application/json without a preflight, so refusing everything else stops blind CSRF.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (!hasBody(req.headers) || isRawUpload(req.method, req.path)) return next();
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return next(new ApiError('unsupported_media_type'));
  next();
};
