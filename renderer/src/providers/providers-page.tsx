import { useState } from 'react';
import { useApi, useResource } from '../api/session';
import { useT } from '../i18n/i18n';
import { Badge, Card, ConfirmDialog, EmptyState, ErrorBanner, Notice, PageHeader, ListTable, RowButton } from '../ui/controls';
import { DefaultsCard } from './defaults-card';
import { WebSettingsCard } from '../web/web-settings';
import { ProviderEditor } from './provider-editor';
import { ProviderTest } from './provider-test';
import { draftFrom, TYPE_LABELS, type MaskedProvider, type ProvidersResponse } from './provider-types';

const NEW_PROVIDER = { id: '', name: '', type: 'compat' as const, enabled: true, models: [] };

export function ProvidersPage() {
  const t = useT();
  const api = useApi();
  const providers = useResource<ProvidersResponse>('/api/config/providers', ['providers', 'defaults']);
  const [editing, setEditing] = useState<MaskedProvider | 'new' | null>(null);
  const [testing, setTesting] = useState<MaskedProvider | null>(null);
  const [deleting, setDeleting] = useState<MaskedProvider | null>(null);
  const list = providers.data?.providers ?? [];

  const keyBadge = (p: MaskedProvider) => {
    if (p.api_key_source === 'env') return <Badge tone="blue">{t('providers.keyEnv')}</Badge>;
    if (p.api_key_set) return <Badge tone="green">{t('providers.keySet')}</Badge>;
    return <Badge tone="amber">{t('providers.keyMissing')}</Badge>;
  };

  return (
    <>
      <PageHeader
        title={t('nav.providers')}
        subtitle={t('providers.subtitle')}
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
            {t('providers.add')}
          </button>
        }
      />
      {providers.data?.errors.map((e) => (
        <Notice key={`${e.file}:${e.line}`} tone="error">
          {t('providers.fileProblem', { file: e.file, line: e.line ?? '?', message: e.message })}
        </Notice>
      ))}
      <ErrorBanner error={providers.error} />
      {providers.data && <DefaultsCard data={providers.data} />}
      <Card title={t('providers.configured')}>
        <ListTable
          loading={providers.loading && !providers.data}
          empty={
            list.length === 0 ? (
              <EmptyState title={t('providers.empty')}>
                <p className="muted">{t('providers.emptyHint')}</p>
              </EmptyState>
            ) : null
          }
          head={
            <tr>
              <th>{t('common.name')}</th>
              <th className="col-optional">{t('providers.type')}</th>
              <th>{t('providers.status')}</th>
              <th className="num">{t('providers.models')}</th>
              <th>{t('providers.apiKey')}</th>
              <th className="col-optional">{t('providers.baseUrl')}</th>
              <th>
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          }
        >
          {list.map((p) => (
            <tr key={p.id}>
              <td>
                <div className="cell-title">{p.name}</div>
                <div className="cell-sub mono">{p.id}</div>
              </td>
              <td className="col-optional">{t(TYPE_LABELS[p.type])}</td>
              <td>{p.enabled ? <Badge tone="green">{t('common.enabled')}</Badge> : <Badge tone="gray">{t('common.disabled')}</Badge>}</td>
              <td className="num">{p.models.length}</td>
              <td>{keyBadge(p)}</td>
              <td className="mono small truncate col-optional" title={p.base_url ?? ''}>
                {p.base_url ?? <span className="muted">{t('providers.defaultUrl')}</span>}
              </td>
              <td className="row-actions">
                <RowButton label={t('providers.testNamed', { name: p.name })} onClick={() => setTesting(p)}>
                  {t('providers.test')}
                </RowButton>
                <RowButton label={t('providers.editNamed', { name: p.name })} onClick={() => setEditing(p)}>
                  {t('common.edit')}
                </RowButton>
                <RowButton label={t('providers.deleteNamed', { name: p.name })} danger onClick={() => setDeleting(p)}>
                  {t('common.delete')}
                </RowButton>
              </td>
            </tr>
          ))}
        </ListTable>
      </Card>
      <WebSettingsCard />
      {editing && (
        <ProviderEditor
          existing={editing === 'new' ? undefined : editing}
          initial={editing === 'new' ? NEW_PROVIDER : draftFrom(editing)}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void providers.reload();
          }}
        />
      )}
      {testing && (
        <ProviderTest
          provider={testing}
          onClose={() => {
            setTesting(null);
            void providers.reload();
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('providers.deleteTitle')}
        message={t('common.confirmDelete', { name: deleting?.name ?? '' })}
        confirmLabel={t('common.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.del(`/api/config/providers/${encodeURIComponent(deleting!.id)}`);
          void providers.reload();
        }}
      />
    </>
  );
}
