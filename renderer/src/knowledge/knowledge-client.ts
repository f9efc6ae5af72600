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
import type { ApiClient } from '../api/client';
import { fetchBytes, uploadRaw } from '../api/raw-transfer';
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
  /** A cited chunk with its neighbours, by its stable id (404 when its text is gone). */
  passage: (kb: string, sid: string, chunkId: string) => `/api/knowledge/${enc(kb)}/sources/${enc(sid)}/chunks?chunk_id=${enc(chunkId)}`,
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

/** Uploads one file as the raw body with `X-Filename`, with progress; failures carry the backend's code and field. */
export function uploadSource(
  api: ApiClient,
  kbId: string,
  file: Blob,
  name: string,
  onProgress: (fraction: number) => void,
): { done: Promise<KnowledgeSource>; abort(): void } {
  return uploadRaw<KnowledgeSource>(api, kbPath.sources(kbId), file, { name, contentType: 'application/octet-stream', onProgress });
}

/** The original bytes of a file source, with the credential (a plain link could not send it). */
export function fetchSourceFile(api: ApiClient, kbId: string, sourceId: string): Promise<Blob> {
  return fetchBytes(api, kbPath.file(kbId, sourceId));
}

/** Splits a patterns field ("*.md, docs/**" or one per line) into globs. */
export function patternList(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}
