import { useEffect, useRef, useState } from 'react';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { ConfirmDialog, Dialog, ErrorBanner, Field } from '../ui/controls';
import { chatPath, type SessionSummary } from './chat-types';

export function sessionTitle(s: Pick<SessionSummary, 'title'>, fallback: string): string {
  return s.title?.trim() || fallback;
}

/** The workspace's chats, newest first: pick, rename, delete (after confirmation). */
export function SessionList(props: {
  workspaceId: string;
  sessions: SessionSummary[];
  /** More (older) sessions exist: `onMore` loads them, called as the end of the list scrolls into view. */
  hasMore: boolean;
  onMore(): void;
  selected: string | null;
  onSelect(id: string): void;
  onChanged(): void;
  onDeleted(id: string): void;
}) {
  const t = useT();
  const api = useApi();
  const [renaming, setRenaming] = useState<SessionSummary | null>(null);
  const [deleting, setDeleting] = useState<SessionSummary | null>(null);
  const [title, setTitle] = useState('');
  const [error, setError] = useState<unknown>();
  const untitled = t('chat.untitled');
  const end = useRef<HTMLButtonElement>(null);
  const { hasMore, onMore } = props;
  const count = props.sessions.length;

  useEffect(() => {
    const target = end.current;
    if (!hasMore || !target || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) onMore();
    });
    observer.observe(target);
    return () => observer.disconnect();
  }, [hasMore, onMore, count]);

  return (
    <>
      {props.sessions.length === 0 ? (
        <p className="muted small side-empty">{t('chat.noSessions')}</p>
      ) : (
        <ul className="session-list" aria-label={t('chat.sessions')}>
          {props.sessions.map((s) => {
            const name = sessionTitle(s, untitled);
            const current = s.id === props.selected;
            return (
              <li key={s.id} className={current ? 'current' : undefined}>
                <button
                  type="button"
                  className="session-pick"
                  aria-current={current ? 'true' : undefined}
                  onClick={() => props.onSelect(s.id)}
                >
                  <span className="session-title">{name}</span>
                  <span className="session-meta">{new Date(s.updated_at).toLocaleString()}</span>
                  {s.model && <span className="session-meta session-model">{s.model}</span>}
                </button>
                <span className="session-actions">
                  <button
                    type="button"
                    className="icon-btn"
                    aria-label={t('chat.renameLabel', { title: name })}
                    title={t('chat.rename')}
                    onClick={() => {
                      setTitle(s.title ?? '');
                      setError(undefined);
                      setRenaming(s);
                    }}
                  >
                    <svg viewBox="0 0 24 24" aria-hidden="true">
                      <path d="M4 20h4L19 9l-4-4L4 16zM13 7l4 4" />
                    </svg>
                  </button>
                  <button
                    type="button"
                    className="icon-btn"
                    aria-label={t('chat.deleteLabel', { title: name })}
                    title={t('common.delete')}
                    onClick={() => setDeleting(s)}
                  >
                    <svg viewBox="0 0 24 24" aria-hidden="true">
                      <path d="M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13" />
                    </svg>
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {hasMore && (
        // Loads by itself when scrolled into view; a button for keyboards and screen readers.
        <button ref={end} type="button" className="btn btn-link btn-small session-more" onClick={onMore}>
          {t('chat.moreSessions')}
        </button>
      )}
      <Dialog title={t('chat.renameChat')} open={renaming !== null} onClose={() => setRenaming(null)}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!renaming) return;
            api.patch(chatPath.session(props.workspaceId, renaming.id), { title: title.trim() }).then(
              () => {
                setRenaming(null);
                props.onChanged();
              },
              (err: unknown) => setError(err),
            );
          }}
        >
          <div className="dialog-body">
            <Field label={t('chat.chatTitle')}>
              <input value={title} onChange={(e) => setTitle(e.target.value)} autoFocus maxLength={200} />
            </Field>
            <ErrorBanner error={error} />
          </div>
          <div className="dialog-foot">
            <button type="button" className="btn" onClick={() => setRenaming(null)}>
              {t('common.cancel')}
            </button>
            <button type="submit" className="btn btn-primary" disabled={!title.trim()}>
              {t('common.save')}
            </button>
          </div>
        </form>
      </Dialog>
      <ConfirmDialog
        open={deleting !== null}
        title={t('chat.deleteChat')}
        message={t('chat.deleteConfirm', { title: deleting ? sessionTitle(deleting, untitled) : '' })}
        confirmLabel={t('common.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await api.del(chatPath.session(props.workspaceId, deleting.id));
          props.onDeleted(deleting.id);
        }}
      />
    </>
  );
}
