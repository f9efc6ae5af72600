import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiFailure } from '../api/client';
import { useApi, useLiveMessages, useSocketState } from '../api/session';
import { applyProgress, asProgress, kbPath, type KnowledgeBaseDetail, type KnowledgeSource } from './knowledge-client';

/**
 * One knowledge base with its sources, kept current: `knowledge.progress` frames move the rows as
 * they arrive, and a source reaching an end state (ready, failed, paused) or one not yet known
 * refetches the whole (chunk counts, sizes, new sources of a folder), as does `config.changed`
 * for this KB (renamed, a source added or removed, the KB deleted: on this client or another).
 */
export function useKb(id: string) {
  const api = useApi();
  const [kb, setKb] = useState<KnowledgeBaseDetail>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const ticket = useRef(0);

  const reload = useCallback(async () => {
    const mine = ++ticket.current;
    try {
      const value = await api.get<KnowledgeBaseDetail>(kbPath.kb(id));
      if (mine !== ticket.current) return;
      setKb(value);
      setError(undefined);
    } catch (err) {
      if (mine !== ticket.current) return;
      setError(err);
      // Deleted (elsewhere): nothing of it stays on screen as if it could still be used.
      if (err instanceof ApiFailure && err.code === 'not_found') setKb(undefined);
    } finally {
      if (mine === ticket.current) setLoading(false);
    }
  }, [api, id]);

  useEffect(() => {
    void Promise.resolve().then(reload);
  }, [reload]);

  useLiveMessages((m) => {
    if (m.type === 'config.changed' && m.resource === 'knowledge' && m.id === id) return void reload();
    const p = asProgress(m);
    if (!p || p.kb_id !== id) return;
    const known = kb?.sources.some((s) => s.id === p.source_id);
    if (known) setKb((cur) => cur && { ...cur, sources: cur.sources.map((s) => (s.id === p.source_id ? applyProgress(s, p) : s)) });
    if (!known || p.state === 'ready' || p.state === 'failed' || p.state === 'paused') void reload();
  });

  // Frames sent while the socket was down are lost: refetch once it is open again.
  const state = useSocketState();
  const wasOpen = useRef(state.kind === 'open');
  useEffect(() => {
    if (state.kind === 'open' && !wasOpen.current) void reload();
    wasOpen.current = state.kind === 'open';
  }, [state.kind, reload]);

  /** A source the page just added (an upload's answer) shows before the next fetch. */
  const addSource = useCallback((source: KnowledgeSource) => {
    setKb((cur) => cur && (cur.sources.some((s) => s.id === source.id) ? cur : { ...cur, sources: [...cur.sources, source] }));
  }, []);

  return { kb, error, loading, reload, addSource };
}
