import { useT, type Translate } from '../i18n/i18n';
import type { AttachmentProblem, PendingAttachment } from './use-attachments';

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A refused file, said in the UI language; the backend's English detail follows when it has one. */
export function problemText(t: Translate, name: string, problem: AttachmentProblem): string {
  switch (problem.code) {
    case 'too_large':
      return t('chat.attach.tooLarge', { name }) + (problem.detail ? ` (${problem.detail})` : '');
    case 'unsupported':
      return t('chat.attach.unsupported', { name }) + (problem.detail ? ` (${problem.detail})` : '');
    case 'too_many':
      return t('chat.attach.tooMany', { name, max: 10 });
    case 'failed':
      return t('chat.attach.failed', { name, message: problem.detail });
  }
}

/** Files waiting to go with the next message: thumbnails or chips, upload progress, remove buttons. */
export function AttachmentTray(props: { items: PendingAttachment[]; onRemove(key: string): void }) {
  const t = useT();
  if (props.items.length === 0) return null;
  return (
    <ul className="att-tray" aria-label={t('chat.attach.pending')}>
      {props.items.map((item) => (
        <li key={item.key} className={`att-pending ${item.status === 'error' ? 'att-error' : ''}`} data-status={item.status}>
          {item.image && item.preview ? (
            <img className="att-pending-thumb" src={item.preview} alt="" />
          ) : (
            <span className="att-pending-icon">
              <AttachIcon kind="file" />
            </span>
          )}
          <span className="att-pending-text">
            <span className="att-name" title={item.name}>
              {item.name}
            </span>
            <span className="att-meta">
              {item.status === 'error' && item.problem ? (
                <span role="alert">{problemText(t, item.name, item.problem)}</span>
              ) : item.status === 'ready' ? (
                formatSize(item.view?.size ?? item.size)
              ) : (
                t('chat.attach.uploading', { percent: Math.round(item.progress * 100) })
              )}
            </span>
            {(item.status === 'uploading' || item.status === 'preparing') && (
              <progress
                className="att-progress"
                max={1}
                value={item.progress}
                aria-label={t('chat.attach.progress', { name: item.name })}
              />
            )}
          </span>
          <button
            type="button"
            className="btn btn-ghost btn-small att-remove"
            aria-label={t('chat.attach.remove', { name: item.name })}
            onClick={() => props.onRemove(item.key)}
          >
            ✕
          </button>
        </li>
      ))}
    </ul>
  );
}

const ICONS = {
  // A paper clip and a page with a folded corner, on the sidebar icons' 24×24 stroke grid.
  clip: 'M16 7l-7.5 7.5a2 2 0 0 0 2.8 2.8L19 9.6a4 4 0 0 0-5.6-5.6L5.6 11.8a6 6 0 0 0 8.5 8.5L20 14.4',
  file: 'M6 3h8l4 4v14H6zM14 3v4h4M9 12h6M9 16h6',
  // A globe (the composer's web search toggle): a circle of radius 9, the equator and two meridians.
  globe: 'M3 12a9 9 0 1 0 18 0a9 9 0 1 0-18 0M3 12h18M12 3a14 14 0 0 1 0 18M12 3a14 14 0 0 0 0 18',
};

/** Stroke icons drawn here (no icon dependency; emoji fonts are missing on some Linux desktops). */
export function AttachIcon({ kind }: { kind: keyof typeof ICONS }) {
  return (
    <svg
      className="att-icon"
      viewBox="0 0 24 24"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={ICONS[kind]} />
    </svg>
  );
}
