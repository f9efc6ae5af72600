import type {
  ChunkLocation,
  KnowledgeBase,
  KnowledgeBaseDetail,
  KnowledgeHit,
  KnowledgeProgress,
  KnowledgeSearchResponse,
  KnowledgeSource,
  SearchMode,
  SourceSpan,
  SourceState,
} from '../../../backend/knowledge/knowledge-api.js';
import type { ErrorBody } from '../../../backend/http/errors-api.js';
import { ApiFailure, joinUrl, type ApiClient } from '../api/client';
import type { LiveMessage } from '../api/live-socket';

export type {
  ChunkLocation,
  KnowledgeBase,
  KnowledgeBaseDetail,
  KnowledgeHit,
  KnowledgeProgress,
  KnowledgeSearchResponse,
  KnowledgeSource,
  SearchMode,
  SourceSpan,
  SourceState,
};

/** The backend's limit on one uploaded file (DESIGN 13), checked here before the bytes leave. */
export const MAX_SOURCE_BYTES = 100 * 1024 * 1024;

const enc = encodeURIComponent;

/** The routes of DESIGN 13, plus the two read routes the citation viewer uses. */
export const kbPath = {
  list: '/api/knowledge',
  kb: (kb: string) => `/api/knowledge/${enc(kb)}`,
  sources: (kb: string) => `/api/knowledge/${enc(kb)}/sources`,
  source: (kb: string, sid: string) => `/api/knowledge/${enc(kb)}/sources/${enc(sid)}`,
  control: (kb: string, sid: string, action: 'retry' | 'pause' | 'resume') => `/api/knowledge/${enc(kb)}/sources/${enc(sid)}/${action}`,
  search: (kb: string) => `/api/knowledge/${enc(kb)}/search`,
  chunks: (kb: string, sid: string, from?: number, to?: number) => {
    const q = new URLSearchParams();
    if (from !== undefined) q.set('from', String(from));
    if (to !== undefined) q.set('to', String(to));
    const query = q.toString();
    return `/api/knowledge/${enc(kb)}/sources/${enc(sid)}/chunks${query ? `?${query}` : ''}`;
  },
  file: (kb: string, sid: string) => `/api/knowledge/${enc(kb)}/sources/${enc(sid)}/file`,
};

/** States in which the job still runs (a progress bar moves, Pause applies). */
export const ACTIVE_STATES: readonly SourceState[] = ['queued', 'parsing', 'embedding'];

/** A WebSocket message that is a progress frame. */
export function asProgress(message: LiveMessage): KnowledgeProgress | null {
  return message.type === 'knowledge.progress' ? message : null;
}

/** A source with a progress frame applied: the frame is newer than anything fetched before it. */
export function applyProgress(source: KnowledgeSource, p: KnowledgeProgress): KnowledgeSource {
  const { error, state, chunks_done, chunks_total } = p;
  const next: KnowledgeSource = { ...source, state, chunks_done, chunks_total };
  if (error) next.error = error;
  else delete next.error;
  return next;
}

/**
 * Uploads one file as the raw body with `X-Filename` (XMLHttpRequest: fetch reports no upload
 * progress). Failures are ApiFailures carrying the backend's code and field.
 */
export function uploadSource(
  api: ApiClient,
  kbId: string,
  file: Blob,
  name: string,
  onProgress: (fraction: number) => void,
): { done: Promise<KnowledgeSource>; abort(): void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<KnowledgeSource>((resolve, reject) => {
    xhr.open('POST', joinUrl(api.baseUrl, kbPath.sources(kbId)));
    if (api.credential) xhr.setRequestHeader('Authorization', `Bearer ${api.credential}`);
    xhr.setRequestHeader('X-Filename', encodeURIComponent(name));
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as KnowledgeSource);
      const envelope = (body as Partial<ErrorBody> | undefined)?.error;
      reject(
        new ApiFailure('http', xhr.status, envelope?.code ?? `http_${xhr.status}`, envelope?.message ?? xhr.statusText, envelope?.field),
      );
    };
    xhr.onerror = () => reject(new ApiFailure('network', 0, 'unreachable', 'network error'));
    xhr.onabort = () => reject(new ApiFailure('network', 0, 'aborted', 'upload cancelled'));
    xhr.send(file);
  });
  return { done, abort: () => xhr.abort() };
}

/** The original bytes of a file source, with the credential (a plain link could not send it). */
export async function fetchSourceFile(api: ApiClient, kbId: string, sourceId: string): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(joinUrl(api.baseUrl, kbPath.file(kbId, sourceId)), {
      headers: api.credential ? { Authorization: `Bearer ${api.credential}` } : {},
    });
  } catch (err) {
    throw new ApiFailure('network', 0, 'unreachable', (err as Error).message || 'network error');
  }
  if (!res.ok) throw new ApiFailure('http', res.status, `http_${res.status}`, res.statusText);
  return res.blob();
}

/** Splits a patterns field ("*.md, docs/**" or one per line) into globs. */
export function patternList(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}
