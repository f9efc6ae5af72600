import { useEffect, useState, type FormEvent } from 'react';
import type { PairingStatus } from '../../../backend/pairing/pairing-api.js';
import { joinUrl, requestJson } from '../api/client';
import { normalizeBackendUrl } from '../api/connection-store';
import { useI18n } from '../i18n/i18n';
import { fromShell, shell } from '../platform/shell-bridge';
import { Badge, Field, Notice } from '../ui/controls';
import { LanguagePicker } from '../i18n/language-picker';
import { ResetPairing } from './reset-pairing';
import { claimMessage } from '../devices/claim-message';
import { inviteFromLocation, JoinForm } from '../devices/join-form';
import { UseLocalBackend } from '../remote/use-local';

export interface ClaimResult {
  credential: string;
  node_id: string;
}

export function PairingScreen(props: {
  baseUrl: string;
  notice?: 'unauthorized';
  /** Desktop app on a remote backend: the bundled backend's code and reset do not apply to it. */
  remote?: boolean;
  onPaired(result: ClaimResult): void;
  onChangeUrl(url: string): void;
}) {
  const { t, locale } = useI18n();
  const [status, setStatus] = useState<PairingStatus | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const [claimError, setClaimError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [editingUrl, setEditingUrl] = useState(false);
  const [urlDraft, setUrlDraft] = useState(props.baseUrl);
  const [urlError, setUrlError] = useState<string | null>(null);
  const [shellCode, setShellCode] = useState<string | null>(null);
  // Opened from an invite's QR code: joining is what this visit is for, the unpaired help is noise.
  const [invited] = useState(() => inviteFromLocation() !== '');

  useEffect(() => {
    let cancelled = false;
    const check = () =>
      requestJson<PairingStatus>(joinUrl(props.baseUrl, '/api/pairing/status'), 'GET', undefined)
        .then((s) => {
          if (cancelled) return;
          setStatus(s);
          setStatusError(null);
        })
        .catch((err) => !cancelled && setStatusError(claimMessage(err, t, props.baseUrl)));
    void check();
    // While the backend is paired to another client (or unreachable), notice when that changes.
    const poll = setInterval(() => void check(), 3000);
    // In the app the shell reads the code from its backend's log: pairing is one click.
    const bridge = props.remote ? undefined : shell();
    let off: (() => void) | undefined;
    if (bridge) {
      fromShell(bridge.pairing.getCode())
        .then((c) => !cancelled && setShellCode(c?.code ?? null))
        .catch(() => undefined);
      off = bridge.pairing.onCodeChanged((c) => setShellCode(c?.code ?? null));
    }
    return () => {
      cancelled = true;
      clearInterval(poll);
      off?.();
    };
  }, [props.baseUrl, props.remote, t]);

  const claim = async (pairingCode: string) => {
    setBusy(true);
    setClaimError(null);
    try {
      const result = await requestJson<ClaimResult>(joinUrl(props.baseUrl, '/api/pairing/claim'), 'POST', {
        pairing_code: pairingCode,
        display_name: shell() ? 'Desktop app' : `Browser (${navigator.platform || 'web'})`,
      });
      props.onPaired(result);
    } catch (err) {
      setClaimError(claimMessage(err, t, props.baseUrl));
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(trimmed)) {
      setCodeError(t('pair.codeFormat'));
      return;
    }
    setCodeError(null);
    void claim(trimmed);
  };

  const applyUrl = (e: FormEvent) => {
    e.preventDefault();
    const url = normalizeBackendUrl(urlDraft);
    if (!url) return setUrlError(t('connect.badUrl'));
    setUrlError(null);
    setEditingUrl(false);
    props.onChangeUrl(url);
  };

  const expires = status?.pairing_expires_at ? new Date(status.pairing_expires_at).toLocaleString(locale === 'zh' ? 'zh-CN' : 'en') : null;

  return (
    <main className="connect-page">
      <div className="connect-card">
        <div className="connect-brand">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          <div>
            <p className="brand-name">{t('app.name')}</p>
            <p className="brand-sub">{t('app.tagline')}</p>
          </div>
          <div className="connect-lang">
            <LanguagePicker />
          </div>
        </div>
        <h1>{t('connect.title')}</h1>
        <p className="muted">{t('connect.subtitle')}</p>
        {props.notice === 'unauthorized' && <Notice tone="warning">{t('pair.sessionEnded')}</Notice>}

        <div className="connect-url">
          {editingUrl ? (
            <form onSubmit={applyUrl} className="inline-form">
              <Field label={t('connect.backendUrl')} error={urlError ?? undefined}>
                <input value={urlDraft} onChange={(e) => setUrlDraft(e.target.value)} autoFocus spellCheck={false} />
              </Field>
              <button className="btn btn-primary" type="submit">
                {t('connect.use')}
              </button>
            </form>
          ) : (
            <div className="url-row">
              <span className="muted">{t('connect.backendUrl')}</span>
              <code>{props.baseUrl}</code>
              {/* Before the badge, which appears when the status answers: a button that moves under the pointer loses clicks. */}
              {!shell() && (
                <button type="button" className="btn btn-link" onClick={() => setEditingUrl(true)}>
                  {t('connect.change')}
                </button>
              )}
              {status && <Badge tone={status.bound ? 'amber' : 'blue'}>{status.bound ? t('pair.bound') : t('pair.unbound')}</Badge>}
            </div>
          )}
        </div>

        {!status && !statusError && <p className="muted">{t('connect.checking')}</p>}
        {statusError && <Notice tone="error">{statusError}</Notice>}
        {status?.bootstrap_mode === 'managed' && <Notice tone="info">{t('pair.managed')}</Notice>}

        {/* In the desktop app <ResetPairing> says this and offers the reset itself. */}
        {status?.bound && invited && <JoinForm baseUrl={props.baseUrl} onPaired={props.onPaired} />}
        {status?.bound && !shell() && !invited && (
          <div className="banner banner-warning bound-help" role="alert">
            <p>
              <strong>{t('mgmt.boundTitle', { name: status.display_name ?? t('mgmt.anotherClient') })}</strong>
            </p>
            <p>{t('mgmt.boundWhy')}</p>
            <ul>
              <li>{t('mgmt.boundWayPaired')}</li>
              <li>
                {t('mgmt.boundWayCli')} <code>npm run backend -- reset-pairing</code>
              </li>
            </ul>
            <p>{t('mgmt.boundOtherAddress')}</p>
            <p className="muted">{t('mgmt.boundWatching')}</p>
          </div>
        )}

        {shellCode && !status?.bound && (
          <div className="shell-pair">
            <p>{t('pair.appOneClick')}</p>
            <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void claim(shellCode)}>
              {t('pair.appPair')}
            </button>
          </div>
        )}

        {status?.bound && !invited && <JoinForm baseUrl={props.baseUrl} onPaired={props.onPaired} />}
        {props.remote ? <UseLocalBackend /> : <ResetPairing baseUrl={props.baseUrl} bound={status?.bound} onPaired={props.onPaired} />}
        {!status?.bound && (
          <form onSubmit={submit} className="pair-form" noValidate>
            <Field
              label={t('pair.code')}
              error={codeError ?? undefined}
              hint={
                <>
                  {t('pair.codeHint')} {expires && t('pair.codeExpires', { time: expires })}
                </>
              }
            >
              <input
                className="code-input"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                value={code}
                onChange={(e) => setCode(e.target.value)}
                autoFocus={!editingUrl}
                placeholder="••••••"
              />
            </Field>
            <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
              {busy ? t('pair.pairing') : t('pair.submit')}
            </button>
          </form>
        )}
        {claimError && <Notice tone="error">{claimError}</Notice>}
      </div>
    </main>
  );
}
