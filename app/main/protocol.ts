import { net, protocol } from 'electron';
import { pathToFileURL } from 'node:url';
import { CONTENT_SECURITY_POLICY, RENDERER_SCHEME, resolveRendererFile } from './renderer-files.js';

/** Must run before `app.ready`: a standard, secure scheme gets an origin (app://renderer) and fetch. */
export function registerRendererScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: RENDERER_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
  ]);
}

/** Serves the packaged renderer files; anything outside the folder is refused by the path guard. */
export function serveRenderer(rendererDir: string): void {
  protocol.handle(RENDERER_SCHEME, async (request) => {
    const resolved = resolveRendererFile(rendererDir, request.url);
    if (!resolved.ok) return new Response(resolved.reason, { status: resolved.status });
    const response = await net.fetch(pathToFileURL(resolved.file).toString()).catch(() => null);
    if (!response || !response.ok) return new Response('not found', { status: 404 });
    const headers = new Headers(response.headers);
    headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    headers.set('X-Content-Type-Options', 'nosniff');
    return new Response(response.body, { status: 200, headers });
  });
}
