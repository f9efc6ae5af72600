import { useState } from 'react';
import { useT } from '../i18n/i18n';
import { fromShell, shell } from '../platform/shell-bridge';
import { Notice } from '../ui/controls';

/** On a remote backend's pairing screen (desktop app): the way back to the bundled backend. */
export function UseLocalBackend() {
  const t = useT();
  const [error, setError] = useState<string | null>(null);
  const bridge = shell();
  if (!bridge?.remote) return null;
  return (
    <div className="button-row">
      <button
        type="button"
        className="btn"
        onClick={() => void fromShell(bridge.remote.use('local')).catch((err: Error) => setError(err.message))}
      >
        {t('remote.useLocal')}
      </button>
      {error && <Notice tone="error">{error}</Notice>}
    </div>
  );
}
