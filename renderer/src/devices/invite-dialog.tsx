import { useCallback, useEffect, useState } from 'react';
import type { DeviceRole, InviteResponse } from '../../../backend/pairing/pairing-api.js';
import { useApi } from '../api/session';
import { useT } from '../i18n/i18n';
import { CopyButton, Dialog, ErrorBanner, Field, Notice } from '../ui/controls';
import { QrCode } from '../ui/qr-code';

/** The page a new device opens: the pairing screen reads the code from the fragment (never sent to a server). */
export function inviteUrl(baseUrl: string, code: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/#invite=${code}`;
}

function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

/** "Add a device": a one-time code shown as digits, a URL and a QR code of that URL, valid 10 minutes. */
export function InviteDialog({ baseUrl, joinedCount, onClose }: { baseUrl: string; joinedCount: number; onClose(): void }) {
  const t = useT();
  const api = useApi();
  const [invite, setInvite] = useState<InviteResponse | null>(null);
  const [error, setError] = useState<unknown>();
  const [now, setNow] = useState(() => Date.now());
  const [startCount] = useState(joinedCount);

  const [role, setRole] = useState<DeviceRole>('member');

  const issue = useCallback(() => {
    setError(undefined);
    api.post<InviteResponse>('/api/selfhost/devices/invite', { role }).then(setInvite, setError);
  }, [api, role]);
  useEffect(() => {
    void Promise.resolve().then(issue);
  }, [issue]);
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, []);

  const left = invite ? Math.max(0, Math.round((Date.parse(invite.expires_at) - now) / 1000)) : 0;
  const url = invite ? inviteUrl(baseUrl, invite.code) : '';
  const joined = joinedCount > startCount;

  return (
    <Dialog title={t('devices.addTitle')} open onClose={onClose}>
      <div className="dialog-body invite">
        <ErrorBanner error={error} />
        {!joined && (
          <Field label={t('devices.inviteRole')} hint={t('devices.inviteRoleHint')} className="invite-role">
            <select value={role} onChange={(e) => setRole(e.target.value as DeviceRole)}>
              <option value="member">{t('devices.roleMember')}</option>
              <option value="owner">{t('devices.roleOwner')}</option>
            </select>
          </Field>
        )}
        {joined && <Notice tone="success">{t('devices.joined')}</Notice>}
        {invite && left > 0 && !joined && (
          <>
            <p>{t('devices.inviteSteps')}</p>
            <div className="invite-grid">
              <QrCode text={url} label={t('devices.qrLabel', { url })} />
              <div className="invite-facts">
                <p className="muted small">{t('devices.code')}</p>
                <p className="invite-code mono" aria-label={t('devices.codeLabel', { code: invite.code.split('').join(' ') })}>
                  {invite.code.slice(0, 3)} {invite.code.slice(3)}
                </p>
                <p className="muted small">{t('devices.url')}</p>
                <p className="invite-url mono">{url}</p>
                <CopyButton text={url} />
                <p className="field-hint" role="timer" aria-live="off">
                  {t('devices.expiresIn', { minutes: Math.floor(left / 60), seconds: String(left % 60).padStart(2, '0') })}
                </p>
              </div>
            </div>
            {isLoopbackUrl(baseUrl) && <Notice tone="warning">{t('devices.loopbackOnly')}</Notice>}
          </>
        )}
        {invite && left === 0 && !joined && <Notice tone="info">{t('devices.expired')}</Notice>}
      </div>
      <div className="dialog-foot">
        {!joined && (
          <button type="button" className="btn" onClick={issue}>
            {t('devices.newCode')}
          </button>
        )}
        <button type="button" className="btn btn-primary" onClick={onClose}>
          {t('common.close')}
        </button>
      </div>
    </Dialog>
  );
}
