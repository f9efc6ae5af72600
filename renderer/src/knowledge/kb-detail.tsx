import { useState } from 'react';
import { ApiFailure } from '../api/client';
import { useIsOwner } from '../api/device-role';
import { useOffline } from '../api/session';
import { useT } from '../i18n/i18n';
import { Card, ErrorBanner, Notice, PageHeader } from '../ui/controls';
import { AddFiles } from './add-files';
import { AddOther } from './add-other';
import { KbFormDialog } from './kb-form';
import { KbSearch } from './kb-search';
import { SourceRows } from './source-rows';
import { useKb } from './use-kb';

/** One knowledge base: add sources, watch them index, search them. */
export function KbDetail(props: { id: string; onBack(): void }) {
  const t = useT();
  const offline = useOffline();
  const { kb, error, loading, reload, addSource } = useKb(props.id);
  const [editing, setEditing] = useState(false);
  const owner = useIsOwner();
  const re = kb?.reembedding;
  // Deleted, here or on another device (the page follows `config.changed`): said plainly.
  const gone = !kb && error instanceof ApiFailure && error.code === 'not_found';

  return (
    <>
      <p className="kb-back">
        <a
          href="#/knowledge"
          onClick={(e) => {
            e.preventDefault();
            props.onBack();
          }}
        >
          ← {t('kb.all')}
        </a>
      </p>
      <PageHeader
        title={kb?.name ?? t('nav.knowledge')}
        subtitle={kb ? kb.description || t('kb.subtitle') : undefined}
        actions={
          kb &&
          owner && (
            <button type="button" className="btn" onClick={() => setEditing(true)}>
              {t('kb.settings')}
            </button>
          )
        }
      />
      {gone ? <Notice tone="warning">{t('kb.gone')}</Notice> : <ErrorBanner error={error} />}
      {kb && (
        <p className="small muted kb-models">
          {!kb.embedding
            ? t('kb.lexicalOnlyNote')
            : kb.embedding.dimensions
              ? t('kb.usesModel', { model: kb.embedding.model, dims: kb.embedding.dimensions })
              : t('kb.usesModelNew', { model: kb.embedding.model })}
          {kb.rerank ? ` · ${t('kb.usesRerank', { model: kb.rerank.model })}` : ''}
        </p>
      )}
      {re && (
        <Notice tone="info">
          {t('kb.reembedding', { done: re.chunks_done, total: re.chunks_total })}
          <progress className="kb-reembed" aria-label={t('kb.reembedProgress')} max={Math.max(1, re.chunks_total)} value={re.chunks_done} />
        </Notice>
      )}
      {kb && (
        <>
          <Card title={t('kb.addSources')}>
            <AddFiles kbId={kb.id} onAdded={addSource} disabled={offline} />
            <AddOther kbId={kb.id} onAdded={addSource} disabled={offline} folder={owner} />
          </Card>
          <Card title={t('kb.sources')}>
            <SourceRows kbId={kb.id} sources={kb.sources} loading={loading && !kb} onChanged={() => void reload()} />
          </Card>
          <Card title={t('kb.searchTitle')}>
            <KbSearch kbId={kb.id} vectors={kb.embedding !== null} />
          </Card>
        </>
      )}
      {loading && !kb && !error && <p className="muted">{t('common.loading')}</p>}
      {editing && kb && (
        <KbFormDialog
          kb={kb}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            void reload();
          }}
        />
      )}
    </>
  );
}
