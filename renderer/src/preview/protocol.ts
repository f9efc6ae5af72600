// What the app and the preview page (public/preview.html) say to each other. The page's origin is
// opaque, so its messages arrive from origin "null": the app accepts only messages whose source is
// its own frame's window, and checks each field before using it.

export type PreviewKind = 'html' | 'svg' | 'mermaid';

export type FromFrame =
  | { type: 'ready' }
  | { type: 'rendered' }
  | { type: 'pong'; n: number }
  | { type: 'size'; height: number }
  | { type: 'error'; message: string }
  | { type: 'drawn'; id: number; svg: string }
  | { type: 'drawn'; id: number; error: string };

/** The largest SVG text taken from the diagram host (a 1,000-node flowchart is about 1 MB). */
const MAX_SVG = 16 * 1024 * 1024;

/** The fixed preview page, served with the preview CSP (by the backend and the desktop protocol). */
export const PREVIEW_PAGE = './preview.html';

const KINDS: Record<string, PreviewKind> = { html: 'html', htm: 'html', svg: 'svg', mermaid: 'mermaid' };

export function previewKind(lang: string): PreviewKind | null {
  return KINDS[lang.toLowerCase()] ?? null;
}

/** A reply that is one whole HTML document (no prose around it) previews like an html block. */
export function isWholeHtmlDocument(text: string): boolean {
  const t = text.trim();
  return /^(<!doctype html\b[^>]*>\s*)?<html[\s>]/i.test(t) && /<\/html>$/i.test(t);
}

export function parseFromFrame(data: unknown): FromFrame | null {
  if (!data || typeof data !== 'object') return null;
  const m = data as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
    case 'rendered':
      return { type: m.type };
    case 'pong':
      return typeof m.n === 'number' ? { type: 'pong', n: m.n } : null;
    case 'size':
      return typeof m.height === 'number' && Number.isFinite(m.height) ? { type: 'size', height: Math.max(0, m.height) } : null;
    case 'error':
      return typeof m.message === 'string' ? { type: 'error', message: m.message.slice(0, 2000) } : null;
    case 'drawn':
      if (typeof m.id !== 'number') return null;
      if (typeof m.svg === 'string')
        return m.svg.length <= MAX_SVG
          ? { type: 'drawn', id: m.id, svg: m.svg }
          : { type: 'drawn', id: m.id, error: 'The diagram is too large to show' };
      return typeof m.error === 'string' ? { type: 'drawn', id: m.id, error: m.error.slice(0, 2000) } : null;
    default:
      return null;
  }
}

export function fileName(kind: PreviewKind): string {
  return kind === 'html' ? 'artifact.html' : kind === 'svg' ? 'artifact.svg' : 'diagram.mmd';
}

export function mimeType(kind: PreviewKind): string {
  return kind === 'html' ? 'text/html' : kind === 'svg' ? 'image/svg+xml' : 'text/plain';
}
