import { useState } from 'react';
import type { BackupInfo, BackupListResponse, RestoreResponse } from '../../../backend/backup/backup-api.js';
import { useApi, useResource } from '../api/session';
import { useI18n } from '../i18n/i18n';
import { Badge, Card, ConfirmDialog, EmptyState, ErrorBanner, ListTable, Notice, PageHeader, RowButton } from '../ui/controls';

const BACKUPS = '/api/backups';
const backupPath = (name: string) => `${BACKUPS}/${encodeURIComponent(name)}`;

export function formatSize(bytes: number, locale: string): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toLocaleString(locale, { maximumFractionDigits: unit === 0 ? 0 : 1 })} ${units[unit]}`;
}

/** Backups: list with dates and sizes, take one now, restore (confirmed; the backend restarts), delete. */
export function BackupsPage() {
  const { t, locale } = useI18n();
  const api = useApi();
  const list = useResource<BackupListResponse>(BACKUPS, []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const [restoring, setRestoring] = useState<BackupInfo | null>(null);
  const [deleting, setDeleting] = useState<BackupInfo | null>(null);
  const tag = locale === 'zh' ? 'zh-CN' : 'en';
  const date = (b: BackupInfo) => new Date(b.created_at).toLocaleString(tag);
  const backups = list.data?.backups ?? [];

  const backUpNow = async () => {
    setBusy(true);
    setError(undefined);
    setMessage(undefined);
    try {
      const made = await api.post<BackupInfo>(BACKUPS, { kind: 'manual' });
      setMessage(t('backups.made', { name: made.name }));
      await list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  /** The backend answers, then restarts on the restored data: wait until it lists backups again. */
  const waitForRestart = async () => {
    for (let attempt = 0; attempt < 60; attempt++) {
      await new Promise((r) => setTimeout(r, 500));
      try {
        await api.get(BACKUPS);
        setMessage(t('backups.restored'));
        await list.reload();
        return;
      } catch {
        // still restarting
      }
    }
  };

  return (
    <>
      <PageHeader
        title={t('nav.backups')}
        subtitle={t('backups.subtitle')}
        actions={
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void backUpNow()}>
            {busy ? t('backups.working') : t('backups.now')}
          </button>
        }
      />
      <ErrorBanner error={error ?? list.error} />
      {message && <Notice tone="success">{message}</Notice>}
      <Card title={t('backups.all')}>
        {list.data && <p className="muted backups-where">{t('backups.where', { dir: list.data.dir })}</p>}
        <ListTable
          loading={list.loading && !list.data}
          empty={
            backups.length === 0 ? (
              <EmptyState title={t('backups.empty')}>
                <p className="muted">{t('backups.emptyHint')}</p>
              </EmptyState>
            ) : null
          }
          head={
            <tr>
              <th>{t('backups.date')}</th>
              <th>{t('backups.kind')}</th>
              <th>{t('backups.size')}</th>
              <th>
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          }
        >
          {backups.map((b) => (
            <tr key={b.name}>
              <td className="cell-title" title={b.name}>
                {date(b)}
              </td>
              <td>
                <Badge tone={b.kind === 'manual' ? 'blue' : 'gray'}>{t(`backups.kind.${b.kind}`)}</Badge>
              </td>
              <td className="mono">{formatSize(b.size_bytes, tag)}</td>
              <td className="row-actions">
                <RowButton label={t('backups.restoreNamed', { date: date(b) })} onClick={() => setRestoring(b)}>
                  {t('backups.restore')}
                </RowButton>
                <RowButton label={t('backups.deleteNamed', { date: date(b) })} danger onClick={() => setDeleting(b)}>
                  {t('common.delete')}
                </RowButton>
              </td>
            </tr>
          ))}
        </ListTable>
      </Card>
      <ConfirmDialog
        open={restoring !== null}
        title={t('backups.restoreTitle')}
        message={restoring ? t('backups.restoreMessage', { date: date(restoring) }) : ''}
        confirmLabel={t('backups.restore')}
        onClose={() => setRestoring(null)}
        onConfirm={async () => {
          const answer = await api.post<RestoreResponse>(`${backupPath(restoring!.name)}/restore`);
          setMessage(t('backups.restoring', { name: answer.safety_backup.name }));
          void waitForRestart();
        }}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={t('backups.deleteTitle')}
        message={t('common.confirmDelete', { name: deleting ? date(deleting) : '' })}
        confirmLabel={t('common.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          await api.del(backupPath(deleting!.name));
          await list.reload();
        }}
      />
    </>
  );
}
