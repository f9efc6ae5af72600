import type { ReactNode } from 'react';
import { useOffline } from '../api/session';
import { useT } from '../i18n/i18n';

/**
 * While the backend does not answer: a page-level banner saying so, and every control of the page
 * disabled (a disabled fieldset) with the reason as its tooltip, instead of writes failing one by one.
 */
export function OfflineGate({ baseUrl, children }: { baseUrl: string; children: ReactNode }) {
  const t = useT();
  const offline = useOffline();
  return (
    <>
      {offline && (
        <div className="banner banner-error offline-banner" role="alert">
          {t('mgmt.offline', { url: baseUrl })}
        </div>
      )}
      <fieldset className="page-gate" disabled={offline} title={offline ? t('mgmt.offlineReason') : undefined}>
        {children}
      </fieldset>
    </>
  );
}
