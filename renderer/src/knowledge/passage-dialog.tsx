import { useEffect, useState } from 'react';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { Dialog, ErrorBanner } from '../ui/controls';
import { fetchSourceFile, kbPath, type ChunkLocation, type SourceSpan } from './knowledge-client';
import { locationLabel } from './location-label';

export interface PassageRef {
  kb_id: string;
  source_id: string;
  chunk_id: string;
  name: string;
  location?: ChunkLocation;
}

type Chunk = SourceSpan['chunks'][number];

/**
 * The passage a citation or a search hit points at, read from the source's chunks, with the
 * chunks on either side for context; a PDF passage also offers its page in the original file.
 */
export function PassageDialog(props: { passage: PassageRef; onClose(): void }) {
  const t = useT();
  const api = useApi();
  const p = props.passage;
  const [span, setSpan] = useState<{ before?: Chunk; chunk: Chunk; after?: Chunk } | null>(null);
  const [error, setError] = useState<unknown>();
  const [opening, setOpening] = useState(false);
  const page = (n: number) => t('web.source.page', { n });

  useEffect(() => {
    let live = true;
    api.get<SourceSpan>(kbPath.chunks(p.kb_id, p.source_id)).then(
      (s) => {
        if (!live) return;
        const i = s.chunks.findIndex((c) => c.chunk_id === p.chunk_id);
        if (i < 0) return setError(new Error(t('kb.passageGone')));
        setSpan({ before: s.chunks[i - 1], chunk: s.chunks[i], after: s.chunks[i + 1] });
      },
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [api, p.kb_id, p.source_id, p.chunk_id, t]);

  const location = span?.chunk.location ?? p.location;
  const where = location ? locationLabel(location, page) : '';
  const openPdf = async () => {
    setOpening(true);
    setError(undefined);
    // Opened before the fetch (a popup blocker allows only what a click opens at once).
    const tab = window.open('', '_blank');
    try {
      const blob = await fetchSourceFile(api, p.kb_id, p.source_id);
      const url = URL.createObjectURL(blob.type ? blob : new Blob([blob], { type: 'application/pdf' }));
      const target = `${url}#page=${location?.page ?? 1}`;
      if (tab) tab.location.href = target;
      else window.open(target, '_blank');
      // The tab keeps its own copy once loaded; the URL is released after a while.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (err) {
      tab?.close();
      setError(err);
    } finally {
      setOpening(false);
    }
  };

  return (
    <Dialog title={p.name} open onClose={props.onClose} wide>
      <div className="dialog-body kb-passage">
        {where && <p className="muted small kb-passage-where">{where}</p>}
        <ErrorBanner error={error} />
        {!span && !error && <p className="muted">{t('common.loading')}</p>}
        {span && (
          <>
            {span.before && <p className="kb-passage-context">{span.before.text}</p>}
            <blockquote className="kb-passage-text" data-chunk={span.chunk.chunk_id}>
              {span.chunk.text}
            </blockquote>
            {span.after && <p className="kb-passage-context">{span.after.text}</p>}
          </>
        )}
      </div>
      <div className="dialog-foot">
        {location?.page !== undefined && (
          <button type="button" className="btn" disabled={opening} onClick={() => void openPdf()}>
            {t('kb.openPdfPage', { n: location.page })}
          </button>
        )}
        <button type="button" className="btn btn-primary" onClick={props.onClose}>
          {t('common.close')}
        </button>
      </div>
    </Dialog>
  );
}
