import { lazy, Suspense, useState } from 'react';
import { useT } from '../i18n/i18n';
import type { Citation } from '../../../backend/chat/chat-api.js';
import { locationLabel } from '../knowledge/location-label';
import type { PassageRef } from '../knowledge/passage-dialog';

// The passage viewer loads on the first citation opened (not part of the first-load bundle).
const PassageDialog = lazy(() => import('../knowledge/passage-dialog').then((m) => ({ default: m.PassageDialog })));

export { locationLabel };

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/**
 * The numbered sources under a reply (DESIGN 13/14), one list for every kind: web pages open in
 * a new tab; knowledge passages show their source name and place.
 */
export function SourcesList({ citations }: { citations: Citation[] }) {
  const t = useT();
  const pageOf = (n: number) => t('web.source.page', { n });
  const [open, setOpen] = useState<PassageRef | null>(null);
  if (citations.length === 0) return null;
  const sorted = [...citations].sort((a, b) => a.n - b.n);
  return (
    <section className="sources" aria-label={t('web.sources')}>
      <h4 className="sources-title">{t('web.sources')}</h4>
      <ol className="sources-list">
        {sorted.map((c) => (
          <li key={`${c.kind}-${c.n}`} value={c.n}>
            {c.kind === 'web' ? (
              <a href={c.url} target="_blank" rel="noopener noreferrer" title={c.url}>
                {c.title || c.url}
                <span className="sources-host"> · {hostOf(c.url)}</span>
              </a>
            ) : (
              <button type="button" className="btn-link sources-passage" title={t('web.source.knowledge')} onClick={() => setOpen(c)}>
                {c.name}
                {c.location && locationLabel(c.location, pageOf) ? (
                  <span className="sources-host"> · {locationLabel(c.location, pageOf)}</span>
                ) : null}
              </button>
            )}
          </li>
        ))}
      </ol>
      {open && (
        <Suspense fallback={null}>
          <PassageDialog passage={open} onClose={() => setOpen(null)} />
        </Suspense>
      )}
    </section>
  );
}
