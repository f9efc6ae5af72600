import { useEffect, useState } from 'react';
import { useLiveMessages, useSession } from '../api/session';
import { useT } from '../i18n/i18n';
import { fromShell, shell } from '../platform/shell-bridge';
import { Card, ConfirmDialog, ErrorBanner, Notice, PageHeader } from '../ui/controls';
import { LiveIndicator } from './live-indicator';
import { DesktopBackendNote } from '../connect/reset-pairing';

export function ConnectionPage({ baseUrl }: { baseUrl: string }) {
  const t = useT();
  const { api, socket, endSession, replaceCredential } = useSession();
  const [version, setVersion] = useState<{ version: string; api: number; node: string } | null>(null);
  const [nodeId, setNodeId] = useState<string | null>(socket.hello?.node_id ?? null);
  const [error, setError] = useState<unknown>();
  const [rotated, setRotated] = useState(false);
  const [resetting, setResetting] = useState(false);
  const bridge = shell();

  useEffect(() => {
    api.get<{ version: string; api: number; node: string }>('/api/version').then(setVersion, setError);
  }, [api]);
  useLiveMessages((m) => {
    if (m.type === 'hello') setNodeId(m.node_id);
  });

  const rotate = async () => {
    setError(undefined);
    try {
      const { credential } = await api.post<{ credential: string }>('/api/selfhost/credential/rotate');
      setRotated(true);
      await replaceCredential(credential);
    } catch (err) {
      setError(err);
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
          <dt>{t('live.label')}</dt>
          <dd>
            <LiveIndicator />
          </dd>
        </dl>
        <div className="button-row">
          <button type="button" className="btn" onClick={() => void rotate()}>
            {t('session.rotate')}
          </button>
          <button type="button" className="btn" onClick={() => endSession('user')}>
            {t('session.disconnect')}
          </button>
          <button type="button" className="btn btn-danger-ghost" onClick={() => setResetting(true)}>
            {t('session.resetPairing')}
          </button>
        </div>
      </Card>
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
      <ConfirmDialog
        open={resetting}
        title={t('session.resetPairing')}
        message={t('session.resetConfirm')}
        confirmLabel={t('session.resetPairing')}
        onClose={() => setResetting(false)}
        onConfirm={async () => {
          await api.post('/api/selfhost/pairing/reset');
          endSession('user');
        }}
      />
    </>
  );
}
