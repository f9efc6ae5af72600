import { useId, useState, type FormEvent } from 'react';
import { useApi } from '../api/session';
import { useT, type MessageKey } from '../i18n/i18n';
import { EmptyState, ErrorBanner } from '../ui/controls';
import { kbPath, type KnowledgeHit, type KnowledgeSearchResponse, type SearchMode } from './knowledge-client';
import { locationLabel } from './location-label';
import { PassageDialog } from './passage-dialog';

const MODES: { mode: SearchMode; label: MessageKey }[] = [
  { mode: 'hybrid', label: 'kb.mode.hybrid' },
  { mode: 'lexical', label: 'kb.mode.lexical' },
  { mode: 'vector', label: 'kb.mode.vector' },
];

/** The search box of a knowledge base: ranked passages with their source, place and score. */
export function KbSearch(props: { kbId: string; vectors: boolean }) {
  const t = useT();
  const api = useApi();
  const id = useId();
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<SearchMode>('hybrid');
  const [answer, setAnswer] = useState<{ query: string; asked: SearchMode; response: KnowledgeSearchResponse } | null>(null);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState<KnowledgeHit | null>(null);
  const page = (n: number) => t('web.source.page', { n });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!query.trim()) return;
    setBusy(true);
    setError(undefined);
    try {
      const response = await api.post<KnowledgeSearchResponse>(kbPath.search(props.kbId), { query, top_k: 8, mode });
      setAnswer({ query, asked: mode, response });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const results = answer?.response.results ?? [];
  return (
    <div className="kb-search">
      <form className="inline-form" role="search" onSubmit={(e) => void submit(e)}>
        <div className="field grow">
          <label htmlFor={id}>{t('kb.searchLabel')}</label>
          <input id={id} type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder={t('kb.searchPlaceholder')} />
        </div>
        <fieldset className="kb-modes">
          <legend>{t('kb.mode')}</legend>
          {MODES.map((m) => (
            <label key={m.mode} className="kb-mode">
              <input
                type="radio"
                name={`${id}-mode`}
                value={m.mode}
                checked={mode === m.mode}
                disabled={m.mode === 'vector' && !props.vectors}
                onChange={() => setMode(m.mode)}
              />
              <span>{t(m.label)}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" className="btn btn-primary" disabled={busy || !query.trim()}>
          {t('kb.search')}
        </button>
      </form>
      <ErrorBanner error={error} />
      {/* A KB without an embedding model always answers by words: only a KB with one has vectors to wait for. */}
      {answer && props.vectors && answer.response.mode !== answer.asked && (
        <p className="banner banner-info" role="status">
          {t('kb.modeFellBack', { mode: t(MODES.find((m) => m.mode === answer.response.mode)?.label ?? 'kb.mode.lexical') })}
        </p>
      )}
      {answer &&
        (results.length === 0 ? (
          <EmptyState title={t('kb.nothingRelevant', { query: answer.query })} />
        ) : (
          <ol className="kb-hits" aria-label={t('kb.resultsFor', { query: answer.query })}>
            {results.map((h) => (
              <li key={h.chunk_id} className="kb-hit">
                <div className="kb-hit-head">
                  <button type="button" className="btn btn-link kb-hit-source" onClick={() => setOpen(h)}>
                    {h.name}
                  </button>
                  {locationLabel(h.location, page) && <span className="muted small">{locationLabel(h.location, page)}</span>}
                  <span className="kb-score mono small" title={t('kb.score')}>
                    {t('kb.scoreValue', { score: h.score.toFixed(3) })}
                  </span>
                </div>
                <p className="kb-hit-text">{h.text}</p>
              </li>
            ))}
          </ol>
        ))}
      {open && <PassageDialog passage={{ ...open, kb_id: open.kb_id ?? props.kbId }} onClose={() => setOpen(null)} />}
    </div>
  );
}
