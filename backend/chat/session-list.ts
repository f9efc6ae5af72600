import { promises as fs } from 'node:fs';
import { ApiError } from '../http/errors.js';
import type { SessionMeta } from './chat-types.js';

/** Newest first: updated_at, then id, both descending. */
function newerFirst(a: SessionMeta, b: SessionMeta): number {
  if (a.updated_at !== b.updated_at) return a.updated_at < b.updated_at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export function listCursor(meta: Pick<SessionMeta, 'updated_at' | 'id'>): string {
  return Buffer.from(`${meta.updated_at}|${meta.id}`, 'utf8').toString('base64url');
}

function parseCursor(cursor: string): Pick<SessionMeta, 'updated_at' | 'id'> {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.lastIndexOf('|');
  if (bar <= 0 || cursor.length > 200 || Number.isNaN(Date.parse(text.slice(0, bar))))
    throw new ApiError('validation_failed', 'before must be a cursor from a previous page (its "next").', { field: 'before' });
  return { updated_at: text.slice(0, bar), id: text.slice(bar + 1) };
}

interface Listing {
  /** mtime of the sessions folder when read: a session added or removed by hand changes it. */
  mtimeMs: number;
  sorted: SessionMeta[];
}

/**
 * Each workspace's sessions, sorted newest first and kept in memory once read, so a page of the
 * list costs the page, not the number of sessions. session.json stays the truth: the store keeps
 * this in step with its own writes, and a folder changed from outside is read again.
 */
export class SessionListCache {
  private readonly listings = new Map<string, Promise<Listing>>();

  constructor(
    private readonly dirOf: (workspaceId: string) => string,
    private readonly readAll: (workspaceId: string) => Promise<SessionMeta[]>,
    /** Called when a listing is read in full (first use, or its folder changed from outside). */
    private readonly onRead: (workspaceId: string) => void = () => undefined,
  ) {}

  private async mtime(workspaceId: string): Promise<number> {
    return fs.stat(this.dirOf(workspaceId)).then(
      (st) => st.mtimeMs,
      () => -1,
    );
  }

  private async listing(workspaceId: string): Promise<Listing> {
    const mtimeMs = await this.mtime(workspaceId);
    const cached = this.listings.get(workspaceId);
    if (cached) {
      const listing = await cached;
      if (listing.mtimeMs === mtimeMs) return listing;
    }
    this.onRead(workspaceId);
    const loading = this.readAll(workspaceId).then((metas) => ({ mtimeMs, sorted: metas.sort(newerFirst) }));
    this.listings.set(workspaceId, loading);
    loading.catch(() => this.listings.delete(workspaceId));
    return loading;
  }

  async all(workspaceId: string): Promise<SessionMeta[]> {
    return [...(await this.listing(workspaceId)).sorted];
  }

  /** Up to `limit` sessions after the cursor `before`, and the cursor of the next page (null at the end). */
  async page(workspaceId: string, limit: number, before?: string): Promise<{ sessions: SessionMeta[]; next: string | null }> {
    const { sorted } = await this.listing(workspaceId);
    let start = 0;
    if (before !== undefined) {
      const after = { ...parseCursor(before) } as SessionMeta;
      // Binary search: the first session ordered after the cursor (the cursor's own may be gone).
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (newerFirst(sorted[mid], after) <= 0) lo = mid + 1;
        else hi = mid;
      }
      start = lo;
    }
    const sessions = sorted.slice(start, start + limit);
    const more = start + limit < sorted.length;
    return { sessions, next: more && sessions.length > 0 ? listCursor(sessions[sessions.length - 1]) : null };
  }

  /** After the store wrote session.json (or created or removed a session folder). */
  async changed(workspaceId: string, meta: SessionMeta | null, removedId?: string): Promise<void> {
    const cached = this.listings.get(workspaceId);
    if (!cached) return;
    const listing = await cached.catch(() => null);
    if (!listing) return;
    const id = meta?.id ?? removedId;
    const at = listing.sorted.findIndex((m) => m.id === id);
    if (at >= 0) listing.sorted.splice(at, 1);
    if (meta) {
      let lo = 0;
      let hi = listing.sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (newerFirst(listing.sorted[mid], meta) < 0) lo = mid + 1;
        else hi = mid;
      }
      listing.sorted.splice(lo, 0, { ...meta });
    }
    // Our own folder change: still the same listing.
    listing.mtimeMs = await this.mtime(workspaceId);
  }

  forget(workspaceId: string): void {
    this.listings.delete(workspaceId);
  }
}
