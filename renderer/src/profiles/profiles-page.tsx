import { useState } from 'react';
import { fileErrors, listOf, path, type ProfileView } from '../api/resources';
import { useApi, useResource } from '../api/session';
import { useT } from '../i18n/i18n';
import type { ProvidersResponse } from '../providers/provider-types';
import { Badge, Card, ConfirmDialog, EmptyState, ErrorBanner, Notice, PageHeader, ListTable, RowButton } from '../ui/controls';
import { draftFromProfile, NEW_PROFILE, ProfileEditor } from './profile-editor';

export function ProfilesPage() {
  const t = useT();
  const api = useApi();
  const profiles = useResource<unknown>(path.profiles, ['profiles', 'providers', 'defaults']);
  const providers = useResource<ProvidersResponse>('/api/config/providers', ['providers', 'defaults']);
  const [editing, setEditing] = useState<ProfileView | 'new' | null>(null);
  const [deleting, setDeleting] = useState<ProfileView | null>(null);
  const list = listOf<ProfileView>(profiles.data, 'profiles');
  const langLabel = (l: string) => (l === 'zh' ? '中文' : l === 'en' ? 'English' : t('profiles.langSystem'));

  return (
    <>
      <PageHeader
        title={t('nav.profiles')}
        subtitle={t('profiles.subtitle')}
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
            {t('profiles.add')}
          </button>
        }
      />
      {fileErrors(profiles.data).map((e) => (
        <Notice key={e.file} tone="error">
          {t('providers.fileProblem', { file: e.file, line: e.line ?? '?', message: e.message })}
        </Notice>
      ))}
      <ErrorBanner error={profiles.error} />
      <Card title={t('profiles.all')}>
        <ListTable
          loading={profiles.loading && !profiles.data}
          empty={
            list.length === 0 ? (
              <EmptyState title={t('profiles.empty')}>
                <p className="muted">{t('profiles.emptyHint')}</p>
              </EmptyState>
            ) : null
          }
          head={
            <tr>
              <th>{t('profiles.id')}</th>
              <th>{t('profiles.model')}</th>
              <th>{t('profiles.language')}</th>
              <th>{t('profiles.thinking')}</th>
              <th className="col-optional">{t('profiles.compression')}</th>
              <th className="num col-optional">{t('profiles.timeout')}</th>
              <th>
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          }
        >
          {list.map((p) => (
            <tr key={p.id}>
              <td>
                <div className="cell-title mono">{p.id}</div>
                {p.errors?.length ? <Badge tone="red">{t('profiles.hasErrors')}</Badge> : null}
              </td>
              <td className="mono small">
                {p.model ?? <span className="muted">{t('common.none')}</span>}{' '}
                {p.model_is_default && <Badge tone="gray">{t('profiles.isDefault')}</Badge>}
              </td>
              <td>{langLabel(p.language)}</td>
              <td>
                {p.thinking.enabled ? (
                  <Badge tone="blue">{t('profiles.budget', { n: p.thinking.budget })}</Badge>
                ) : (
                  <Badge tone="gray">{t('common.disabled')}</Badge>
                )}
              </td>
              <td className="col-optional">
                {p.compression.enabled ? (
                  <Badge tone="green">{t('profiles.at', { n: p.compression.threshold_percent })}</Badge>
                ) : (
                  <Badge tone="gray">{t('common.disabled')}</Badge>
                )}
              </td>
              <td className="num col-optional">{p.timeout_seconds} s</td>
              <td className="row-actions">
                <RowButton label={t('profiles.editNamed', { id: p.id })} onClick={() => setEditing(p)}>
                  {t('common.edit')}
                </RowButton>
                <RowButton label={t('profiles.deleteNamed', { id: p.id })} danger onClick={() => setDeleting(p)}>
                  {t('common.delete')}
                </RowButton>
              </td>
            </tr>
          ))}
        </ListTable>
      </Card>
      {editing && (
        <ProfileEditor
          existing={editing === 'new' ? undefined : editing}
          initial={editing === 'new' ? NEW_PROFILE : draftFromProfile(editing)}
          providers={providers.data}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void profiles.reload();
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('profiles.deleteTitle')}
        message={t('common.confirmDelete', { name: deleting?.id ?? '' })}
        confirmLabel={t('common.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.del(path.profile(deleting!.id));
          void profiles.reload();
        }}
      />
    </>
  );
}
