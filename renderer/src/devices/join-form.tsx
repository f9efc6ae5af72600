import { useState, type FormEvent } from 'react';
import type { PairedResponse } from '../../../backend/pairing/pairing-api.js';
import { ApiFailure, joinUrl, requestJson } from '../api/client';
import { claimMessage } from './claim-message';
import { useT } from '../i18n/i18n';
import { Field, Notice } from '../ui/controls';

/** The invite code an "Add a device" QR code carries in the URL fragment (which no server sees). */
export function inviteFromLocation(): string {
  const m = /(?:^#|&)invite=(\d{6})(?:&|$)/.exec(window.location.hash);
  return m ? m[1] : '';
}

function defaultDeviceName(): string {
  const ua = navigator.userAgent;
  if (/iPhone|iPad/.test(ua)) return 'iPhone / iPad';
  if (/Android/.test(ua)) return 'Android';
  return `Browser (${navigator.platform || 'web'})`;
}

/** A further device joins a paired backend with a one-time invite code (POST /api/pairing/join). */
export function JoinForm({ baseUrl, onPaired }: { baseUrl: string; onPaired(result: PairedResponse): void }) {
  const t = useT();
  const [code, setCode] = useState(inviteFromLocation);
  const [name, setName] = useState(defaultDeviceName);
  const [codeError, setCodeError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const trimmed = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(trimmed)) return setCodeError(t('pair.codeFormat'));
    setCodeError(null);
    setError(null);
    setBusy(true);
    try {
      const result = await requestJson<PairedResponse>(joinUrl(baseUrl, '/api/pairing/join'), 'POST', {
        invite_code: trimmed,
        ...(name.trim() ? { device_name: name.trim().slice(0, 100) } : {}),
      });
      // The code is spent: keep it out of the address bar and the history.
      if (window.location.hash) history.replaceState(null, '', window.location.pathname + window.location.search);
      onPaired(result);
    } catch (err) {
      setError(err instanceof ApiFailure && err.status === 401 ? t('join.wrong') : claimMessage(err, t, baseUrl));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} className="pair-form join-form" noValidate aria-labelledby="join-title">
      <h2 id="join-title">{t('join.title')}</h2>
      <p className="muted small">{t('join.hint')}</p>
      <Field label={t('join.code')} error={codeError ?? undefined}>
        <input
          className="code-input"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={7}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          placeholder="••••••"
        />
      </Field>
      <Field label={t('join.deviceName')}>
        <input value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
      </Field>
      <button className="btn btn-primary btn-block" type="submit" disabled={busy}>
        {busy ? t('join.joining') : t('join.submit')}
      </button>
      {error && <Notice tone="error">{error}</Notice>}
    </form>
  );
}
