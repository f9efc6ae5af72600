import { useCallback, useEffect, useRef, useState } from 'react';
import { useApi } from '../api/session';
import { chatPath, type SessionDetail, type SessionSummary } from './chat-types';

/** Sessions per request when the list grows as the user scrolls. */
export const SESSION_PAGE = 100;

interface Loaded {
  ws: string;
  sessions: SessionSummary[] | null;
  next: string | null;
  error?: unknown;
}

const newerFirst = (a: SessionSummary, b: SessionSummary) =>
  a.updated_at !== b.updated_at ? (a.updated_at < b.updated_at ? 1 : -1) : a.id < b.id ? 1 : -1;

/**
 * A workspace's sessions, newest first, one page at a time: `more()` loads the next page (the list
 * calls it as its end scrolls into view), `reload()` refreshes as many as are shown, `ensure(id)`
 * adds one that is not loaded yet (a search hit, the chat open last time).
 */
export function useSessions(workspaceId: string | null) {
  const api = useApi();
  // Kept with the workspace they belong to: another workspace's list never shows while loading.
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const shown = useRef(0);
  const loading = useRef(false);
  shown.current = loaded?.ws === workspaceId ? (loaded.sessions?.length ?? 0) : 0;

  const reload = useCallback(async () => {
    if (!workspaceId) return;
    const limit = Math.min(500, Math.max(SESSION_PAGE, shown.current));
    try {
      const r = await api.get<{ sessions: SessionSummary[]; next: string | null }>(`${chatPath.sessions(workspaceId)}?limit=${limit}`);
      setLoaded({ ws: workspaceId, sessions: r.sessions ?? [], next: r.next ?? null });
    } catch (err) {
      setLoaded((prev) => ({
        ws: workspaceId,
        sessions: prev?.ws === workspaceId ? prev.sessions : null,
        next: prev?.ws === workspaceId ? prev.next : null,
        error: err,
      }));
    }
  }, [api, workspaceId]);

  const more = useCallback(async () => {
    const cursor = loaded?.ws === workspaceId ? loaded.next : null;
    if (!workspaceId || !cursor || loading.current) return;
    loading.current = true;
    try {
      const r = await api.get<{ sessions: SessionSummary[]; next: string | null }>(
        `${chatPath.sessions(workspaceId)}?limit=${SESSION_PAGE}&before=${encodeURIComponent(cursor)}`,
      );
      setLoaded((prev) => {
        if (prev?.ws !== workspaceId) return prev;
        const have = new Set((prev.sessions ?? []).map((s) => s.id));
        return { ...prev, sessions: [...(prev.sessions ?? []), ...r.sessions.filter((s) => !have.has(s.id))], next: r.next ?? null };
      });
    } catch (err) {
      setLoaded((prev) => (prev?.ws === workspaceId ? { ...prev, error: err } : prev));
    } finally {
      loading.current = false;
    }
  }, [api, workspaceId, loaded]);

  const ensure = useCallback(
    async (id: string) => {
      if (!workspaceId) return;
      try {
        const s = await api.get<SessionDetail>(`${chatPath.session(workspaceId, id)}?limit=1`);
        const { messages: _m, has_more: _h, active_turn: _a, ...summary } = s;
        setLoaded((prev) => {
          if (prev?.ws !== workspaceId || !prev.sessions || prev.sessions.some((x) => x.id === id)) return prev;
          return { ...prev, sessions: [...prev.sessions, summary].sort(newerFirst) };
        });
      } catch {
        // gone meanwhile: the list shows what exists
      }
    },
    [api, workspaceId],
  );

  useEffect(() => {
    void reload();
  }, [reload]);
  const mine = loaded && loaded.ws === workspaceId ? loaded : null;
  return { sessions: mine?.sessions ?? null, hasMore: !!mine?.next, error: mine?.error, reload, more, ensure };
}
