import { useEffect, useState } from 'react';
import { useIsOwner } from '../api/device-role';
import { listOf } from '../api/resources';
import { useApi, useResource } from '../api/session';
import { useI18n } from '../i18n/i18n';
import { Card, ConfirmDialog, EmptyState, ErrorBanner, ListTable, PageHeader, RowButton } from '../ui/controls';
import { KbDetail } from './kb-detail';
import { KbFormDialog } from './kb-form';
import { kbPath, type KnowledgeBase } from './knowledge-client';
import './knowledge.css';

/** `#/knowledge/<kb-id>` opens one knowledge base (a reload or a shared link lands on it again). */
function kbFromHash(): string | null {
  const m = /^#\/?knowledge\/([^/]+)/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

function useOpenKb(): [string | null, (id: string | null) => void] {
  const [id, setId] = useState(kbFromHash);
  useEffect(() => {
    const onHash = () => setId(kbFromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return [id, (next) => (location.hash = next ? `#/knowledge/${encodeURIComponent(next)}` : '#/knowledge')];
}

/** The Knowledge page (DESIGN 13 "UI"): the list of knowledge bases, or one of them. Loaded lazily. */
export default function KnowledgePage() {
  const [open, setOpen] = useOpenKb();
  return open ? <KbDetail key={open} id={open} onBack={() => setOpen(null)} /> : <KbList onOpen={setOpen} />;
}

function KbList({ onOpen }: { onOpen(id: string): void }) {
  const { t, locale } = useI18n();
  const api = useApi();
  const kbs = useResource<unknown>(kbPath.list, ['knowledge']);
  const list = listOf<KnowledgeBase>(kbs.data, 'knowledge_bases');
  // Creating, changing and deleting a knowledge base are the owner's (DESIGN 16); members use them.
  const owner = useIsOwner();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<KnowledgeBase | null>(null);
  const [deleting, setDeleting] = useState<KnowledgeBase | null>(null);
  const date = (iso: string) => (iso ? new Date(iso).toLocaleString(locale === 'zh' ? 'zh-CN' : 'en') : '');

  return (
    <>
      <PageHeader
        title={t('nav.knowledge')}
        subtitle={t('kb.subtitle')}
        actions={
          owner && (
            <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
              {t('kb.new')}
            </button>
          )
        }
      />
      <ErrorBanner error={kbs.error} />
      <Card title={t('kb.all')}>
        <ListTable
          loading={kbs.loading && !kbs.data}
          empty={
            list.length === 0 ? (
              <EmptyState title={t('kb.empty')}>
                <p className="muted small">{t('kb.emptyHint')}</p>
              </EmptyState>
            ) : null
          }
          head={
            <tr>
              <th>{t('kb.name')}</th>
              <th>{t('kb.embeddingModel')}</th>
              <th className="col-optional">{t('kb.created')}</th>
              <th>
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          }
        >
          {list.map((kb) => (
            <tr key={kb.id}>
              <td>
                <div className="cell-title">
                  <a href={`#/knowledge/${encodeURIComponent(kb.id)}`}>{kb.name}</a>
                </div>
                {kb.description && <div className="cell-sub">{kb.description}</div>}
              </td>
              <td className="small mono">{kb.embedding?.model ?? <span className="muted">{t('kb.lexicalOnly')}</span>}</td>
              <td className="small muted col-optional">{date(kb.created_at)}</td>
              <td className="row-actions">
                <RowButton label={t('kb.openNamed', { name: kb.name })} onClick={() => onOpen(kb.id)}>
                  {t('kb.open')}
                </RowButton>
                {owner && (
                  <>
                    <RowButton label={t('kb.editNamed', { name: kb.name })} onClick={() => setEditing(kb)}>
                      {t('common.edit')}
                    </RowButton>
                    <RowButton label={t('kb.deleteNamed', { name: kb.name })} danger onClick={() => setDeleting(kb)}>
                      {t('common.delete')}
                    </RowButton>
                  </>
                )}
              </td>
            </tr>
          ))}
        </ListTable>
      </Card>
      {(creating || editing) && (
        <KbFormDialog
          kb={editing ?? undefined}
          onClose={() => {
            setCreating(false);
            setEditing(null);
          }}
          onSaved={(kb) => {
            const created = creating;
            setCreating(false);
            setEditing(null);
            void kbs.reload();
            if (created) onOpen(kb.id);
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('kb.deleteTitle')}
        message={t('kb.deleteConfirm', { name: deleting?.name ?? '' })}
        confirmLabel={t('common.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.del(kbPath.kb(deleting!.id));
          void kbs.reload();
        }}
      />
    </>
  );
}
