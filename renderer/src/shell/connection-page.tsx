import { useEffect, useState } from 'react';
import type { PairingStatus } from '../../../backend/pairing/pairing-api.js';
import { useLiveMessages, useSession } from '../api/session';
import { useT } from '../i18n/i18n';
import { fromShell, shell } from '../platform/shell-bridge';
import { Card, ConfirmDialog, ErrorBanner, Notice, PageHeader } from '../ui/controls';
import { ForgetDialog } from './forget-dialog';
import { LiveIndicator } from './live-indicator';
import { DesktopBackendNote } from '../connect/reset-pairing';
import { DevicesCard } from '../devices/devices-card';
import { useIsOwner } from '../api/device-role';
import { RemoteCard } from '../remote/remote-card';

/** Survives the remount that a new credential causes, so the success notice is still shown after it. */
let rotatedNotice = false;

export function ConnectionPage({ baseUrl }: { baseUrl: string }) {
  const t = useT();
  const { api, socket, rotateCredential, resetPairing, endSession } = useSession();
  const owner = useIsOwner();
  const [version, setVersion] = useState<{ version: string; api: number; node: string; node_id?: string } | null>(null);
  const [nodeId, setNodeId] = useState<string | null>(socket.hello?.node_id ?? null);
  const [error, setError] = useState<unknown>();
  const [tls, setTls] = useState<string | null | undefined>(undefined);
  const [rotated, setRotated] = useState(rotatedNotice);
  const [busy, setBusy] = useState(false);
  const [resetting, setResetting] = useState(false);
  const [forgetting, setForgetting] = useState(false);
  const bridge = shell();

  useEffect(() => {
    rotatedNotice = false;
    api.get<{ version: string; api: number; node: string; node_id?: string }>('/api/version').then((v) => {
      setVersion(v);
      if (v.node_id) setNodeId((n) => n ?? v.node_id ?? null);
    }, setError);
    api.get<PairingStatus>('/api/pairing/status').then((s) => setTls(s.tls_fingerprint ?? null), setError);
  }, [api]);
  useLiveMessages((m) => {
    if (m.type === 'hello') setNodeId(m.node_id);
  });

  const rotate = async () => {
    setError(undefined);
    setRotated(false);
    setBusy(true);
    try {
      rotatedNotice = true;
      await rotateCredential();
    } catch (err) {
      rotatedNotice = false;
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title={t('session.title')} />
      <ErrorBanner error={error} />
      {rotated && <Notice tone="success">{t('session.rotated')}</Notice>}
      <DesktopBackendNote />
      <Card title={t('session.backend')}>
        <dl className="kv">
          <dt>{t('connect.backendUrl')}</dt>
          <dd className="mono">{baseUrl}</dd>
          <dt>{t('session.version')}</dt>
          <dd className="mono">{version ? `${version.version} (API ${version.api}, Node ${version.node})` : '…'}</dd>
          <dt>{t('session.node')}</dt>
          <dd className="mono">{nodeId ?? '…'}</dd>
          <dt>{t('session.tls')}</dt>
          <dd className="mono fingerprint">{tls === undefined ? '…' : (tls ?? t('session.tlsNone'))}</dd>
          <dt>{t('live.label')}</dt>
          <dd>
            <LiveIndicator />
          </dd>
        </dl>
        <div className="button-row">
          <button type="button" className="btn" disabled={busy} onClick={() => void rotate()}>
            {t('session.rotate')}
          </button>
          <button type="button" className="btn" onClick={() => setForgetting(true)}>
            {t('session.disconnect')}
          </button>
          {owner && (
            <button type="button" className="btn btn-danger-ghost" onClick={() => setResetting(true)}>
              {t('session.resetPairing')}
            </button>
          )}
        </div>
        <p className="field-hint">{t('mgmt.rotateHint')}</p>
      </Card>
      <DevicesCard baseUrl={baseUrl} onRevokedSelf={() => endSession('user')} />
      <RemoteCard />
      {bridge && (
        <Card title={t('session.desktopOnly')}>
          <div className="button-row">
            <button type="button" className="btn" onClick={() => void fromShell(bridge.backend.restart()).catch(setError)}>
              {t('session.restart')}
            </button>
            <button type="button" className="btn" onClick={() => void fromShell(bridge.folders.open('data')).catch(setError)}>
              {t('session.openData')}
            </button>
            <button type="button" className="btn" onClick={() => void fromShell(bridge.folders.open('logs')).catch(setError)}>
              {t('session.openLogs')}
            </button>
          </div>
        </Card>
      )}
      <ForgetDialog open={forgetting} onClose={() => setForgetting(false)} />
      <ConfirmDialog
        open={resetting}
        title={t('session.resetPairing')}
        message={t('session.resetConfirm')}
        confirmLabel={t('session.resetPairing')}
        onClose={() => setResetting(false)}
        onConfirm={resetPairing}
      />
    </>
  );
}
