import { useEffect, useState } from 'react';
import { useSession, useSocketState } from '../api/session';
import { useT } from '../i18n/i18n';
import { assertNever } from './assert-never';

/** The WebSocket's state, always visible: live, connecting, or the countdown to the next try. */
export function LiveIndicator() {
  const t = useT();
  const state = useSocketState();
  const { socket } = useSession();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (state.kind !== 'waiting') return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [state.kind]);

  let label: string;
  let tone: string;
  switch (state.kind) {
    case 'open':
      label = t('live.open');
      tone = 'green';
      break;
    case 'connecting':
      label = t('live.connecting');
      tone = 'amber';
      break;
    case 'waiting':
      label = t('live.waiting', { seconds: Math.max(0, Math.ceil((state.retryAt - now) / 1000)) });
      tone = 'red';
      break;
    case 'closed':
      label = t('live.closed');
      tone = 'gray';
      break;
    default:
      return assertNever(state);
  }
  return (
    <div className="live" role="status" aria-label={t('live.label')}>
      <span className={`dot dot-${tone}`} aria-hidden="true" />
      <span>{label}</span>
      {state.kind === 'waiting' && (
        <button type="button" className="btn btn-link btn-small" onClick={() => socket.retryNow()}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}
