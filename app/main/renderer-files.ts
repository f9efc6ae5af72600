import path from 'node:path';

export const RENDERER_SCHEME = 'app';
export const RENDERER_HOST = 'renderer';

/**
 * The renderer's CSP. Only its own files run; it talks to the backend on a loopback port that is
 * chosen at start (8080 or any free one), hence the port wildcard.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' http://127.0.0.1:* ws://127.0.0.1:* http://localhost:* ws://localhost:*",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

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
