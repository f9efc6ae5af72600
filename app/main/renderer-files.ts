import path from 'node:path';
import { PREVIEW_CSP, PREVIEW_FILE } from '../../backend/http/preview-api.js';

export const RENDERER_SCHEME = 'app';
export const RENDERER_HOST = 'renderer';

const LOOPBACK_SOURCES = "'self' http://127.0.0.1:* ws://127.0.0.1:* http://localhost:* ws://localhost:*";

/**
 * The sources a remote backend adds to `connect-src`: its origin for fetch and the same host and
 * port for the WebSocket (wss:// for https://), nothing broader. Throws on anything but an origin.
 */
export function remoteConnectSources(origin: string): string[] {
  const url = new URL(origin);
  // A host name or IP literal only: `*` or other CSP syntax must never reach the policy.
  const hostOk = /^([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/i.test(url.hostname);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== origin || !hostOk) {
    throw new Error(`not a backend origin: ${origin}`);
  }
  return [url.origin, `${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.host}`];
}

/**
 * The renderer's CSP. Only its own files run; it talks to the backend on a loopback port that is
 * chosen at start (8080 or any free one), hence the port wildcard, and to the one remote backend
 * the user connected to, if any.
 */
export function contentSecurityPolicy(remoteOrigin: string | null = null): string {
  const connect = [LOOPBACK_SOURCES, ...(remoteOrigin ? remoteConnectSources(remoteOrigin) : [])].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/** A <meta> cannot carry frame-ancestors (browsers ignore it there); the header sets it. */
export function metaPolicy(policy: string): string {
  return policy
    .split('; ')
    .filter((d) => !d.startsWith('frame-ancestors'))
    .join('; ');
}

const META_CSP = /(<meta\s+http-equiv="Content-Security-Policy"\s+content=")([^"]+)(")/;

/**
 * index.html with its <meta> policy replaced: a page enforces both the header and the <meta>, so
 * the remote origin must be in both. Refuses a page without the <meta> (a build that lost it).
 */
export function withMetaPolicy(html: string, policy: string): string {
  if (!META_CSP.test(html)) throw new Error('index.html has no Content-Security-Policy <meta>');
  return html.replace(META_CSP, (_m, head: string, _old: string, tail: string) => `${head}${metaPolicy(policy)}${tail}`);
}

export type RendererFile = { ok: true; file: string } | { ok: false; status: 400 | 403 | 404; reason: string };

/**
 * Maps `app://renderer/<path>` to a file inside `root`, refusing anything that would leave it
 * (`..`, encoded separators, backslashes, NUL). Paths without an extension are client-side routes
 * and get index.html.
 */
export function resolveRendererFile(root: string, requestUrl: string): RendererFile {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return { ok: false, status: 400, reason: 'not a URL' };
  }
  if (url.protocol !== `${RENDERER_SCHEME}:` || url.host !== RENDERER_HOST) {
    return { ok: false, status: 403, reason: `only ${RENDERER_SCHEME}://${RENDERER_HOST}/ is served` };
  }
  let relative: string;
  try {
    relative = decodeURIComponent(url.pathname);
  } catch {
    return { ok: false, status: 400, reason: 'bad percent-encoding' };
  }
  // A backslash is a separator on Windows; a NUL truncates paths in native code.
  if (relative.includes('\\') || relative.includes('\0')) return { ok: false, status: 403, reason: 'forbidden character in path' };
  if (relative.split('/').includes('..')) return { ok: false, status: 403, reason: 'path leaves the renderer folder' };
  const last = relative.slice(relative.lastIndexOf('/') + 1);
  if (last === '' || !last.includes('.')) relative = '/index.html';
  const base = path.resolve(root);
  const file = path.resolve(base, `.${relative}`);
  if (!file.startsWith(base + path.sep)) return { ok: false, status: 403, reason: 'path leaves the renderer folder' };
  return { ok: true, file };
}

/**
 * The policy a served file gets: the artifact preview page its own (the backend's contract, so
 * browsers and the desktop app get one policy), every other file the app's.
 */
export function policyForFile(rendererDir: string, file: string, remoteOrigin: string | null): string {
  return path.resolve(file) === path.join(path.resolve(rendererDir), PREVIEW_FILE) ? PREVIEW_CSP : contentSecurityPolicy(remoteOrigin);
}
