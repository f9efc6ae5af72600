import { useCallback, useEffect, useState } from 'react';
import type { RemotesState, RemoteSummary } from '../../../app/ipc/contract.js';
import { useI18n } from '../i18n/i18n';
import { fromShell, shell } from '../platform/shell-bridge';
import { Badge, Card, ConfirmDialog, ErrorBanner } from '../ui/controls';
import { FingerprintText } from './fingerprint-text';
import { requestRemoteConnect } from './remote-host';
import './remote.css';

/**
 * Connection page, desktop app: which backend this window uses, the remotes paired before (use,
 * forget), "Connect to another backend…" and the way back to the bundled backend.
 */
export function RemoteCard() {
  const { t, locale } = useI18n();
  const [state, setState] = useState<RemotesState | null>(null);
  const [error, setError] = useState<unknown>();
  const [forgetting, setForgetting] = useState<RemoteSummary | null>(null);
  const bridge = shell();

  const load = useCallback(() => {
    if (!bridge?.remote) return;
    fromShell(bridge.remote.getState()).then(setState, setError);
  }, [bridge]);
  useEffect(() => {
    void Promise.resolve().then(load);
  }, [load]);
  if (!bridge?.remote) return null;

  const active = state?.active.kind === 'remote' ? state.active.remote.origin : null;
  const act = (call: () => Promise<unknown>) => {
    setError(undefined);
    call().catch(setError);
  };
  const date = (value: string) => new Date(value).toLocaleString(locale === 'zh' ? 'zh-CN' : 'en');

  return (
    <Card title={t('remote.card')}>
      <ErrorBanner error={error} />
      <dl className="kv">
        <dt>{t('remote.using')}</dt>
        <dd className={active ? 'mono' : undefined}>{active ?? t('remote.local')}</dd>
        {state?.active.kind === 'remote' && state.active.remote.fingerprint && (
          <>
            <dt>{t('remote.pinned')}</dt>
            <dd>
              <FingerprintText value={state.active.remote.fingerprint} />
            </dd>
          </>
        )}
      </dl>
      {state && state.remotes.length > 0 && (
        <ul className="remote-list">
          {state.remotes.map((r) => (
            <li key={r.origin}>
              <span>
                <span className="mono">{r.origin}</span> {r.origin === active && <Badge tone="green">{t('remote.inUse')}</Badge>}
                {!r.has_credential && <Badge tone="amber">{t('remote.noCredential')}</Badge>}
                <br />
                <span className="muted">
                  {t('remote.paired')}: {date(r.paired_at)}
                </span>
              </span>
              <span className="button-row">
                {r.origin !== active && (
                  <button
                    type="button"
                    className="btn"
                    aria-label={t('remote.useNamed', { origin: r.origin })}
                    onClick={() => act(() => fromShell(bridge.remote.use(r.origin)))}
                  >
                    {t('remote.use')}
                  </button>
                )}
                <button
                  type="button"
                  className="btn btn-danger-ghost"
                  aria-label={t('remote.forgetNamed', { origin: r.origin })}
                  onClick={() => setForgetting(r)}
                >
                  {t('remote.forget')}
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <div className="button-row">
        <button type="button" className="btn" onClick={requestRemoteConnect}>
          {t('remote.connectOther')}
        </button>
        {active && (
          <button type="button" className="btn" onClick={() => act(() => fromShell(bridge.remote.use('local')))}>
            {t('remote.useLocal')}
          </button>
        )}
      </div>
      <ConfirmDialog
        open={forgetting !== null}
        title={t('remote.forgetTitle', { origin: forgetting?.origin ?? '' })}
        message={t('remote.forgetBody')}
        confirmLabel={t('remote.forget')}
        onClose={() => setForgetting(null)}
        onConfirm={async () => {
          const origin = forgetting!.origin;
          const next = await fromShell(bridge.remote.forget(origin));
          setState(next);
          // The window was on it: back to the bundled backend.
          if (origin === active) await fromShell(bridge.remote.use('local'));
        }}
      />
    </Card>
  );
}
