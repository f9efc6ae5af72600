import { useEffect, useId, useState } from 'react';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { ErrorBanner } from '../ui/controls';
import type { SearchResponse } from '../../../backend/chat/chat-api.js';
import { chatPath, type SearchHit } from './chat-types';

/** Search across every session of every workspace; a hit opens its chat at the message. */
export function ChatSearch(props: { onOpen(hit: SearchHit): void; titleOf(hit: SearchHit): string | undefined }) {
  const t = useT();
  const api = useApi();
  const id = useId();
  const [q, setQ] = useState('');
  const [result, setResult] = useState<{
    query: string;
    hits: SearchHit[];
    more: boolean;
    indexing?: boolean;
    /** Terms past the 16th, which the backend ignored (0 when the whole query was searched). */
    dropped?: number;
    searched?: string[];
    error?: unknown;
  } | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const query = q.trim();
  // Hits of an older query stay up while the new one runs ("Searching…" when there are none).
  const hits = query ? (result?.hits ?? []) : null;
  const busy = query !== '' && result?.query !== query;
  const error = query ? result?.error : undefined;

  // Searches as the user types, once typing pauses.
  useEffect(() => {
    if (!query) return;
    let stale = false;
    const timer = setTimeout(() => {
      api.get<SearchResponse>(chatPath.search(query)).then(
        (r) => {
          if (!stale)
            setResult({ query, hits: r.hits ?? [], more: !!r.has_more, indexing: r.indexing, dropped: r.terms_dropped, searched: r.terms });
        },
        (err: unknown) => {
          if (!stale) setResult({ query, hits: [], more: false, error: err });
        },
      );
    }, 250);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [query, api]);

  // The next page of hits, after those shown.
  const more = () => {
    if (!result || loadingMore) return;
    const { query: asked, hits: shown } = result;
    setLoadingMore(true);
    api
      .get<SearchResponse>(chatPath.search(asked, shown.length))
      .then(
        (r) =>
          setResult((prev) =>
            prev?.query === asked ? { ...prev, hits: [...prev.hits, ...(r.hits ?? [])], more: !!r.has_more, indexing: r.indexing } : prev,
          ),
        (err: unknown) => setResult((prev) => (prev?.query === asked ? { ...prev, error: err } : prev)),
      )
      .finally(() => setLoadingMore(false));
  };

  return (
    <div className="chat-search" role="search">
      <label htmlFor={id} className="sr-only">
        {t('chat.search')}
      </label>
      <input
        id={id}
        type="search"
        value={q}
        placeholder={t('chat.searchPlaceholder')}
        onChange={(e) => setQ(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && q) {
            e.preventDefault();
            setQ('');
          }
        }}
      />
      <ErrorBanner error={error} />
      {hits !== null && (
        <div className="search-results">
          {busy && hits.length === 0 ? (
            <p className="muted small">{t('chat.searching')}</p>
          ) : hits.length === 0 ? (
            <p className="muted small">{t('chat.searchNone', { q: q.trim() })}</p>
          ) : (
            <ul aria-label={t('chat.searchResults')}>
              {hits.map((hit) => (
                <li key={`${hit.session_id}/${hit.message_id}`}>
                  <button type="button" className="search-hit" onClick={() => props.onOpen(hit)}>
                    <span className="search-title">{props.titleOf(hit) ?? t('chat.untitled')}</span>
                    <span className="search-snippet">{hit.snippet}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {result?.indexing && query && <p className="muted small">{t('chat.searchIndexing')}</p>}
          {!!result?.dropped && query && result.query === query && (
            <p className="muted small search-cut" role="note">
              {t('chat.searchTermsCut', { n: result.searched?.length ?? 16, dropped: result.dropped })}
            </p>
          )}
          {result?.more && query && result.query === query && (
            <button type="button" className="btn btn-link btn-small" disabled={loadingMore} onClick={more}>
              {t('chat.searchMore')}
            </button>
          )}
          <button type="button" className="btn btn-link btn-small" onClick={() => setQ('')}>
            {t('chat.clearSearch')}
          </button>
        </div>
      )}
    </div>
  );
}
