import { useState } from 'react';
import type { Refusal } from '../../../app/ipc/contract.js';
import { useI18n } from '../i18n/i18n';
import { fromShell, shell } from '../platform/shell-bridge';
import { LanguagePicker } from '../i18n/language-picker';
import { Notice } from '../ui/controls';
import { FingerprintText } from './fingerprint-text';
import { RemoteConnectDialog } from './remote-connect';
import './remote.css';

/**
 * The pinned remote presented another certificate: nothing was sent. Shows both fingerprints and
 * what the change can mean; "Re-pair…" forgets the pin and runs the connect flow again for the same
 * address (the user compares the new fingerprint with the backend's log first).
 */
export function RemoteRefusedScreen({ refusal }: { refusal: Refusal }) {
  const { t, locale } = useI18n();
  const [error, setError] = useState<string | null>(null);
  const [repairing, setRepairing] = useState(false);
  const bridge = shell();
  const pinnedDate = new Date(refusal.pinned_at).toLocaleString(locale === 'zh' ? 'zh-CN' : 'en');

  const act = async (action: () => Promise<unknown>) => {
    setError(null);
    try {
      await action();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <main className="connect-page remote-refused">
      <div className="connect-card">
        <div className="connect-lang">
          <LanguagePicker />
        </div>
        <h1>{t('remote.refusedTitle')}</h1>
        <Notice tone="error">{t('remote.refusedBody', { origin: refusal.origin })}</Notice>
        <div className="remote-compare">
          <section>
            <h2>{t('remote.refusedPinned', { date: pinnedDate })}</h2>
            <FingerprintText value={refusal.pinned} />
          </section>
          <section>
            <h2>{t('remote.refusedPresented')}</h2>
            <FingerprintText value={refusal.presented} />
          </section>
        </div>
        <h2>{t('remote.refusedWhy')}</h2>
        <ul>
          <li>{t('remote.refusedWhyRegenerated')}</li>
          <li>{t('remote.refusedWhyOperator')}</li>
          <li>{t('remote.refusedWhyAttack')}</li>
        </ul>
        <p>{t('remote.refusedWhat')}</p>
        {error && <Notice tone="error">{error}</Notice>}
        <div className="button-row">
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => void act(() => fromShell(bridge!.remote.use('local')))}
            disabled={!bridge}
          >
            {t('remote.useLocal')}
          </button>
          <button
            type="button"
            className="btn"
            disabled={!bridge}
            onClick={() =>
              void act(async () => {
                await fromShell(bridge!.remote.forget(refusal.origin));
                setRepairing(true);
              })
            }
          >
            {t('remote.repair')}
          </button>
        </div>
      </div>
      <RemoteConnectDialog
        open={repairing}
        initialUrl={refusal.origin}
        onClose={() => {
          setRepairing(false);
          // The pin is gone: without a new pairing the window goes back to the local backend.
          void act(() => fromShell(bridge!.remote.use('local')));
        }}
      />
    </main>
  );
}
