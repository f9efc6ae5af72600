import { useEffect, useState } from 'react';
import type { DeviceInfo, DevicesResponse } from '../../../backend/pairing/pairing-api.js';
import { useApi, useResource } from '../api/session';
import { useI18n } from '../i18n/i18n';
import { Badge, Card, ConfirmDialog, ErrorBanner, ListTable, RowButton } from '../ui/controls';
import { InviteDialog } from './invite-dialog';
import { MemberNote, useIsOwner } from '../api/device-role';

/** Paired devices (DESIGN section 11): each has its own credential; revoking one closes its sockets at once. */
export function DevicesCard({ baseUrl, onRevokedSelf }: { baseUrl: string; onRevokedSelf(): void }) {
  const { t, locale } = useI18n();
  const api = useApi();
  const devices = useResource<DevicesResponse>('/api/selfhost/devices', []);
  const [revoking, setRevoking] = useState<DeviceInfo | null>(null);
  const [inviting, setInviting] = useState(false);
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(locale === 'zh' ? 'zh-CN' : 'en') : t('devices.never'));
  const list = devices.data?.devices ?? [];
  const { reload } = devices;
  const owner = useIsOwner();
  // Revoking a device also revokes those it invited, transitively (DESIGN 16): the confirmation names them.
  const cascade = revoking ? invitees(list, revoking.id) : [];
  // While an invite is shown, notice the new device joining (joins are not broadcast to other devices).
  useEffect(() => {
    if (!inviting) return;
    const poll = setInterval(() => void reload(), 3000);
    return () => clearInterval(poll);
  }, [inviting, reload]);

  return (
    <Card
      title={t('devices.title')}
      actions={
        owner && (
          <button type="button" className="btn btn-primary" onClick={() => setInviting(true)}>
            {t('devices.add')}
          </button>
        )
      }
    >
      <ErrorBanner error={devices.error} />
      {!owner && <MemberNote area="devices" />}
      <ListTable
        loading={devices.loading && !devices.data}
        empty={null}
        head={
          <tr>
            <th>{t('devices.name')}</th>
            <th>{t('devices.role')}</th>
            <th className="col-optional">{t('devices.pairedAt')}</th>
            <th className="col-optional">{t('devices.lastSeen')}</th>
            <th>
              <span className="sr-only">{t('common.actions')}</span>
            </th>
          </tr>
        }
      >
        {list.map((d) => (
          <tr key={d.id} aria-current={d.current ? 'true' : undefined}>
            <td>
              <span className="device-name">{d.name}</span> {d.current && <Badge tone="blue">{t('devices.current')}</Badge>}
              {/* Narrow windows drop the columns; last seen moves under the name. */}
              <span className="device-seen small muted">
                {t('devices.lastSeen')}: {d.current ? t('devices.now') : when(d.last_seen_at)}
              </span>
            </td>
            <td className="small">
              {d.role === 'owner' ? t('devices.roleOwner') : t('devices.roleMember')}
              {d.invited_by_name && <span className="device-inviter muted"> · {t('devices.invitedBy', { name: d.invited_by_name })}</span>}
            </td>
            <td className="col-optional small">{when(d.paired_at)}</td>
            <td className="col-optional small">{d.current ? t('devices.now') : when(d.last_seen_at)}</td>
            <td className="row-actions">
              {owner && (
                <RowButton label={t('devices.revokeNamed', { name: d.name })} danger onClick={() => setRevoking(d)}>
                  {t('devices.revoke')}
                </RowButton>
              )}
            </td>
          </tr>
        ))}
      </ListTable>
      <p className="field-hint">{t('devices.hint')}</p>
      {inviting && <InviteDialog baseUrl={baseUrl} joinedCount={list.length} onClose={() => setInviting(false)} />}
      <ConfirmDialog
        open={revoking !== null}
        title={t('devices.revokeTitle', { name: revoking?.name ?? '' })}
        message={
          (revoking?.current ? t('devices.revokeSelf') : t('devices.revokeOther', { name: revoking?.name ?? '' })) +
          (cascade.length > 0 ? ` ${t('devices.revokeCascade', { names: cascade.map((d) => d.name).join(', ') })}` : '')
        }
        confirmLabel={t('devices.revoke')}
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          const target = revoking;
          if (!target) return;
          await api.del(`/api/selfhost/devices/${encodeURIComponent(target.id)}`);
          if (target.current || cascade.some((d) => d.current)) onRevokedSelf();
          else await devices.reload();
        }}
      />
    </Card>
  );
}

/** The devices `id` invited, directly or through its invitees (what a revocation also takes). */
function invitees(list: readonly DeviceInfo[], id: string): DeviceInfo[] {
  const out: DeviceInfo[] = [];
  const queue = [id];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const d of list) {
      if (d.invited_by !== parent || seen.has(d.id)) continue;
      seen.add(d.id);
      out.push(d);
      queue.push(d.id);
    }
  }
  return out;
}
