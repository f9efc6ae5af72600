import { useState, type FormEvent } from 'react';
import type { PairOutcome, ProbeOutcome, RemoteProbe } from '../../../app/ipc/contract.js';
import { useI18n, type Translate } from '../i18n/i18n';
import { fromShell, shell } from '../platform/shell-bridge';
import { Dialog, Field, Notice } from '../ui/controls';
import { FingerprintText } from './fingerprint-text';
import './remote.css';

type Step =
  | { kind: 'url'; failure?: Extract<ProbeOutcome, { ok: false }> }
  | { kind: 'compare'; probe: RemoteProbe; warning: string | null; knownPin: string | null }
  | { kind: 'code'; probe: RemoteProbe; failure?: Extract<PairOutcome, { ok: false }> }
  | { kind: 'connected'; origin: string };

function probeFailureText(failure: Extract<ProbeOutcome, { ok: false }>, t: Translate): string {
  return t(`remote.fail.${failure.reason}`);
}

function pairFailureText(failure: Extract<PairOutcome, { ok: false }>, t: Translate): string {
  if (failure.reason === 'throttled') {
    return failure.retry_after ? t('remote.fail.throttled', { seconds: failure.retry_after }) : t('remote.fail.throttledNoWait');
  }
  return t(`remote.fail.${failure.reason}`);
}

/**
 * File → "Connect to another backend…": address → the served certificate's fingerprint, compared
 * by the user with the backend's log → invite or pairing code → the app pins the certificate and
 * switches to that backend (the window reloads). Desktop app only: the probe needs the main process.
 */
export function RemoteConnectDialog(props: { open: boolean; initialUrl?: string; onClose(): void }) {
  const { t, locale } = useI18n();
  const [step, setStep] = useState<Step>({ kind: 'url' });
  const [url, setUrl] = useState(props.initialUrl ?? '');
  const [allowInsecure, setAllowInsecure] = useState(false);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const [deviceName, setDeviceName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const bridge = shell();

  const close = () => {
    setStep({ kind: 'url' });
    setCode('');
    setError(null);
    props.onClose();
  };

  const probe = async (e: FormEvent) => {
    e.preventDefault();
    if (!bridge) return;
    setBusy(true);
    setError(null);
    try {
      const outcome = await fromShell(bridge.remote.probe(url, allowInsecure || undefined));
      if (!outcome.ok) return setStep({ kind: 'url', failure: outcome });
      setStep({ kind: 'compare', probe: outcome.probe, warning: outcome.warning, knownPin: outcome.known?.fingerprint ?? null });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const pair = async (e: FormEvent, probe: RemoteProbe) => {
    e.preventDefault();
    if (!bridge) return;
    const digits = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(digits)) return setCodeError(t('remote.codeFormat'));
    setCodeError(null);
    setBusy(true);
    setError(null);
    try {
      const name = deviceName.trim();
      const outcome = await fromShell(
        bridge.remote.pair({ origin: probe.origin, fingerprint: probe.fingerprint, code: digits, ...(name ? { device_name: name } : {}) }),
      );
      if (!outcome.ok) return setStep({ kind: 'code', probe, failure: outcome });
      setStep({ kind: 'connected', origin: probe.origin });
      // The main process reloads the window on the new backend.
      await fromShell(bridge.remote.use(probe.origin));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const dateText = (value: string) => {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? value : date.toLocaleDateString(locale === 'zh' ? 'zh-CN' : 'en');
  };

  return (
    <Dialog title={t('remote.title')} open={props.open} onClose={close} wide>
      <div className="dialog-body remote-connect">
        {error && <Notice tone="error">{error}</Notice>}
        {step.kind === 'url' && (
          <form id="remote-url-form" onSubmit={(e) => void probe(e)} noValidate>
            <p>{t('remote.intro')}</p>
            <Field label={t('remote.url')} hint={t('remote.urlHint')}>
              <input
                value={url}
                onChange={(e) => setUrl(e.target.value)}
                placeholder="https://192.168.1.20:8080"
                spellCheck={false}
                autoFocus
                inputMode="url"
              />
            </Field>
            {step.failure && (
              <Notice tone={step.failure.reason === 'insecure' ? 'warning' : 'error'}>
                <p>{probeFailureText(step.failure, t)}</p>
                {step.failure.reason !== 'insecure' && <p className="mono remote-detail">{step.failure.message}</p>}
              </Notice>
            )}
            {(step.failure?.reason === 'insecure' || allowInsecure) && (
              <label className="check-row">
                <input type="checkbox" checked={allowInsecure} onChange={(e) => setAllowInsecure(e.target.checked)} />
                {t('remote.insecureAllow')}
              </label>
            )}
            {busy && <p className="muted">{t('remote.checking')}</p>}
          </form>
        )}
        {step.kind === 'compare' && (
          <>
            <h3>{step.probe.fingerprint ? t('remote.compareTitle') : t('remote.insecureTitle')}</h3>
            {step.probe.fingerprint ? <p>{t('remote.compareBody')}</p> : <Notice tone="warning">{t('remote.insecureBody')}</Notice>}
            <dl className="kv">
              <dt>{t('remote.url')}</dt>
              <dd className="mono">{step.probe.origin}</dd>
              {step.probe.status.display_name && (
                <>
                  <dt>{t('remote.backendName')}</dt>
                  <dd>{step.probe.status.display_name}</dd>
                </>
              )}
              <dt>{t('remote.fingerprint')}</dt>
              <dd>{step.probe.fingerprint ? <FingerprintText value={step.probe.fingerprint} /> : t('remote.noFingerprint')}</dd>
              {step.probe.certificate && (
                <>
                  <dt>{t('remote.certNames')}</dt>
                  <dd className="mono">{step.probe.certificate.names}</dd>
                  <dt>{t('remote.certExpires')}</dt>
                  <dd>{dateText(step.probe.certificate.valid_to)}</dd>
                </>
              )}
            </dl>
            {step.probe.status_agrees === false && <Notice tone="error">{t('remote.statusDisagrees')}</Notice>}
            {step.knownPin && step.knownPin !== step.probe.fingerprint && (
              <Notice tone="warning">{t('remote.knownPin', { fingerprint: step.knownPin })}</Notice>
            )}
            <p className="muted">{step.probe.status.bound ? t('remote.stateBound') : t('remote.stateUnbound')}</p>
          </>
        )}
        {step.kind === 'code' && (
          <form id="remote-code-form" onSubmit={(e) => void pair(e, step.probe)} noValidate>
            <h3>{t('remote.codeTitle')}</h3>
            <Field
              label={step.probe.status.bound ? t('remote.inviteCode') : t('remote.pairingCode')}
              hint={step.probe.status.bound ? t('remote.inviteHint') : t('remote.pairingHint')}
              error={codeError ?? undefined}
            >
              <input value={code} onChange={(e) => setCode(e.target.value)} inputMode="numeric" autoComplete="one-time-code" autoFocus />
            </Field>
            <Field label={t('remote.deviceName')}>
              <input value={deviceName} onChange={(e) => setDeviceName(e.target.value)} maxLength={100} />
            </Field>
            {step.failure && (
              <Notice tone="error">
                <p>{pairFailureText(step.failure, t)}</p>
                <p className="mono remote-detail">{step.failure.message}</p>
              </Notice>
            )}
          </form>
        )}
        {step.kind === 'connected' && <Notice tone="success">{t('remote.connected', { origin: step.origin })}</Notice>}
      </div>
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={close}>
          {t('common.cancel')}
        </button>
        {step.kind === 'url' && (
          <button type="submit" form="remote-url-form" className="btn btn-primary" disabled={busy || !url.trim()}>
            {t('remote.check')}
          </button>
        )}
        {step.kind === 'compare' && (
          <>
            <button type="button" className="btn" onClick={() => setStep({ kind: 'url' })}>
              {t('remote.back')}
            </button>
            <button type="button" className="btn btn-primary" onClick={() => setStep({ kind: 'code', probe: step.probe })}>
              {step.probe.fingerprint ? t('remote.matches') : t('remote.insecureAllow')}
            </button>
          </>
        )}
        {step.kind === 'code' && (
          <button type="submit" form="remote-code-form" className="btn btn-primary" disabled={busy}>
            {busy ? t('remote.pairing') : t('remote.pair')}
          </button>
        )}
      </div>
    </Dialog>
  );
}
