import { useState } from 'react';
import { useApi } from '../api/session';
import { useT, type MessageKey } from '../i18n/i18n';
import { Badge, ConfirmDialog, EmptyState, ErrorBanner, ListTable, RowButton, type Tone } from '../ui/controls';
import { ACTIVE_STATES, kbPath, type KnowledgeSource, type SourceState } from './knowledge-client';

const STATE_TONE: Record<SourceState, Tone> = {
  queued: 'gray',
  parsing: 'blue',
  embedding: 'blue',
  ready: 'green',
  failed: 'red',
  paused: 'amber',
};

export const STATE_LABEL: Record<SourceState, MessageKey> = {
  queued: 'kb.state.queued',
  parsing: 'kb.state.parsing',
  embedding: 'kb.state.embedding',
  ready: 'kb.state.ready',
  failed: 'kb.state.failed',
  paused: 'kb.state.paused',
};

const KIND_LABEL: Record<KnowledgeSource['kind'], MessageKey> = {
  file: 'kb.kind.file',
  folder: 'kb.kind.folder',
  url: 'kb.kind.url',
  note: 'kb.kind.note',
};

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The job's progress: chunks embedded of all, or an indeterminate bar while the total is unknown. */
function SourceProgress({ source }: { source: KnowledgeSource }) {
  const t = useT();
  const label = t('kb.progressOf', { name: source.name });
  const { chunks_done: done, chunks_total: total, state } = source;
  // A finished or failed job has no bar: its count and its reason say the rest.
  if (state === 'ready' || state === 'failed') return null;
  const value = total > 0 ? Math.min(done, total) : undefined;
  return (
    <div className="kb-progress">
      <progress aria-label={label} max={total > 0 ? total : undefined} value={value} />
      {total > 0 && <span className="small muted">{t('kb.chunksOf', { done: Math.min(done, total), total })}</span>}
    </div>
  );
}

/** The sources of a knowledge base: state, progress, chunk count, the failure and its Retry, job control, remove. */
export function SourceRows(props: { kbId: string; sources: KnowledgeSource[]; loading: boolean; onChanged(): void }) {
  const t = useT();
  const api = useApi();
  const [error, setError] = useState<unknown>();
  const [removing, setRemoving] = useState<KnowledgeSource | null>(null);
  const act = async (s: KnowledgeSource, action: 'retry' | 'pause' | 'resume') => {
    setError(undefined);
    try {
      await api.post(kbPath.control(props.kbId, s.id, action));
      props.onChanged();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <ErrorBanner error={error} />
      <ListTable
        loading={props.loading}
        empty={props.sources.length === 0 ? <EmptyState title={t('kb.noSources')} /> : null}
        head={
          <tr>
            <th>{t('kb.source')}</th>
            <th>{t('kb.state')}</th>
            <th>{t('kb.chunks')}</th>
            <th>
              <span className="sr-only">{t('common.actions')}</span>
            </th>
          </tr>
        }
      >
        {props.sources.map((s) => (
          <tr key={s.id} data-source={s.id} data-state={s.state}>
            <td>
              <div className="cell-title kb-source-name" title={s.name}>
                {s.name}
              </div>
              <div className="cell-sub">
                {t(KIND_LABEL[s.kind])}
                {s.size > 0 ? ` · ${formatBytes(s.size)}` : ''}
                {s.kind === 'folder' && s.files !== undefined ? ` · ${t('kb.files', { n: s.files })}` : ''}
              </div>
              {s.state === 'failed' && s.error && (
                <p className="field-error kb-source-error">
                  {t('kb.failedBecause', { message: s.error.message })} <span className="mono small">({s.error.code})</span>
                </p>
              )}
            </td>
            <td>
              <Badge tone={STATE_TONE[s.state]}>{t(STATE_LABEL[s.state])}</Badge>
              <SourceProgress source={s} />
            </td>
            <td className="mono">{s.state === 'ready' ? s.chunks_total : `${s.chunks_done}/${s.chunks_total}`}</td>
            <td className="row-actions">
              {s.state === 'failed' && (
                <RowButton label={t('kb.retryNamed', { name: s.name })} onClick={() => void act(s, 'retry')}>
                  {t('common.retry')}
                </RowButton>
              )}
              {ACTIVE_STATES.includes(s.state) && (
                <RowButton label={t('kb.pauseNamed', { name: s.name })} onClick={() => void act(s, 'pause')}>
                  {t('kb.pause')}
                </RowButton>
              )}
              {s.state === 'paused' && (
                <RowButton label={t('kb.resumeNamed', { name: s.name })} onClick={() => void act(s, 'resume')}>
                  {t('kb.resume')}
                </RowButton>
              )}
              <RowButton label={t('kb.removeNamed', { name: s.name })} danger onClick={() => setRemoving(s)}>
                {t('kb.remove')}
              </RowButton>
            </td>
          </tr>
        ))}
      </ListTable>
      <ConfirmDialog
        open={removing !== null}
        title={t('kb.removeTitle')}
        message={t('kb.removeConfirm', { name: removing?.name ?? '' })}
        confirmLabel={t('kb.remove')}
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          await api.del(kbPath.source(props.kbId, removing!.id));
          props.onChanged();
        }}
      />
    </>
  );
}
