import { useEffect, useState } from 'react';
import { ApiFailure, type ApiClient } from '../api/client';
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

/** Chunks a read route answers at most per call. */
const PAGE = 200;

/**
 * The cited chunk with its neighbours, by the chunk's stable id (one read; a 404 means its text is
 * gone). A citation without a chunk (the whole source was sent) shows the source's text.
 */
async function findPassage(api: ApiClient, p: PassageRef): Promise<{ before?: Chunk; chunk: Chunk; after?: Chunk }[] | null> {
  if (!p.chunk_id) return (await api.get<SourceSpan>(kbPath.chunks(p.kb_id, p.source_id, 0, PAGE - 1))).chunks.map((chunk) => ({ chunk }));
  let span: SourceSpan;
  try {
    span = await api.get<SourceSpan>(kbPath.passage(p.kb_id, p.source_id, p.chunk_id));
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 404) return null;
    throw err;
  }
  const i = span.chunks.findIndex((c) => c.chunk_id === span.chunk_id);
  if (i < 0) return null;
  return [{ before: span.chunks[i - 1], chunk: span.chunks[i]!, after: span.chunks[i + 1] }];
}

/**
 * The passage a citation or a search hit points at, read from the source's chunks, with the
 * chunks on either side for context; a PDF passage also offers its page in the original file.
 */
export function PassageDialog(props: { passage: PassageRef; onClose(): void }) {
  const t = useT();
  const api = useApi();
  const p = props.passage;
  const [found, setFound] = useState<{ before?: Chunk; chunk: Chunk; after?: Chunk }[] | null>(null);
  const [error, setError] = useState<unknown>();
  const [opening, setOpening] = useState(false);
  const page = (n: number) => t('web.source.page', { n });

  useEffect(() => {
    let live = true;
    findPassage(api, p).then(
      (spans) => {
        if (!live) return;
        if (!spans) return setError(new Error(t('kb.passageGone')));
        setFound(spans);
      },
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- read again only for another passage
  }, [api, p.kb_id, p.source_id, p.chunk_id, t]);

  const single = found?.length === 1 && p.chunk_id ? found[0] : null;
  const location = single?.chunk.location ?? p.location;
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
        {!found && !error && <p className="muted">{t('common.loading')}</p>}
        {single && (
          <>
            {single.before && <p className="kb-passage-context">{single.before.text}</p>}
            <blockquote className="kb-passage-text" data-chunk={single.chunk.chunk_id}>
              {single.chunk.text}
            </blockquote>
            {single.after && <p className="kb-passage-context">{single.after.text}</p>}
          </>
        )}
        {found && !single && (
          <div className="kb-passage-whole">
            {found.map(({ chunk }) => (
              <p key={chunk.chunk_id} className="kb-passage-context">
                {chunk.text}
              </p>
            ))}
          </div>
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
