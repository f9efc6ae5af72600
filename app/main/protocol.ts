import { net, protocol } from 'electron';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { policyForFile, RENDERER_SCHEME, resolveRendererFile, withMetaPolicy } from './renderer-files.js';

/** Must run before `app.ready`: a standard, secure scheme gets an origin (app://renderer) and fetch. */
export function registerRendererScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: RENDERER_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
  ]);
}

/**
 * Serves the packaged renderer files; anything outside the folder is refused by the path guard.
 * The CSP allows the remote backend in use (`remoteOrigin()`), read per request: the window is
 * reloaded after a switch.
 */
export function serveRenderer(rendererDir: string, remoteOrigin: () => string | null = () => null): void {
  protocol.handle(RENDERER_SCHEME, async (request) => {
    const resolved = resolveRendererFile(rendererDir, request.url);
    if (!resolved.ok) return new Response(resolved.reason, { status: resolved.status });
    const response = await net.fetch(pathToFileURL(resolved.file).toString()).catch(() => null);
    if (!response || !response.ok) return new Response('not found', { status: 404 });
    // The artifact preview page (preview.html) gets its own no-network, sandboxing policy.
    const policy = policyForFile(rendererDir, resolved.file, remoteOrigin());
    const headers = new Headers(response.headers);
    headers.set('Content-Security-Policy', policy);
    headers.set('X-Content-Type-Options', 'nosniff');
    if (path.basename(resolved.file) !== 'index.html') return new Response(response.body, { status: 200, headers });
    // The page enforces its <meta> policy too: it must name the same remote origin.
    headers.delete('content-length');
    return new Response(withMetaPolicy(await response.text(), policy), { status: 200, headers });
  });
}
