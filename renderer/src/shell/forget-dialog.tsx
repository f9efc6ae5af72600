import { useState } from 'react';
import { useSession } from '../api/session';
import { useT } from '../i18n/i18n';
import { shell } from '../platform/shell-bridge';
import { Dialog, ErrorBanner } from '../ui/controls';

/**
 * "Forget credential on this device" asks first: the backend stays paired to the forgotten
 * credential, so nothing could pair again. The safe choice, offered first, also unpairs on the
 * backend (which logs a new code); forgetting alone says how to get back in.
 */
export function ForgetDialog(props: { open: boolean; onClose(): void }) {
  const t = useT();
  const { endSession, resetPairing } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const app = !!shell();
  return (
    <Dialog title={t('mgmt.forgetTitle')} open={props.open} onClose={props.onClose}>
      <div className="dialog-body">
        <p>{t('mgmt.forgetWarning')}</p>
        <p>{app ? t('mgmt.forgetWayBackApp') : t('mgmt.forgetWayBackBrowser')}</p>
        <ErrorBanner error={error} />
      </div>
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={props.onClose}>
          {t('common.cancel')}
        </button>
        <button type="button" className="btn btn-danger-ghost" disabled={busy} onClick={() => endSession('user')}>
          {t('mgmt.forgetOnly')}
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy}
          onClick={() => {
            void (async () => {
              setBusy(true);
              setError(undefined);
              try {
                await resetPairing();
              } catch (err) {
                setError(err);
                setBusy(false);
              }
            })();
          }}
        >
          {t('mgmt.forgetAndReset')}
        </button>
      </div>
    </Dialog>
  );
}
