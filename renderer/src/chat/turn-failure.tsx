import type { MessageKey } from '../i18n/i18n';
import { useT } from '../i18n/i18n';
import type { TurnError } from './chat-types';

const KNOWN: Record<string, MessageKey> = {
  provider_unauthorized: 'chat.err.provider_unauthorized',
  provider_rate_limited: 'chat.err.provider_rate_limited',
  provider_unreachable: 'chat.err.provider_unreachable',
  provider_error: 'chat.err.provider_error',
  timeout: 'chat.err.timeout',
  cancelled: 'chat.err.cancelled',
  context_overflow: 'chat.err.context_overflow',
  tool_error: 'chat.err.tool_error',
  storage_error: 'chat.err.storage_error',
};

export function errorKey(code: string): MessageKey {
  return KNOWN[code] ?? 'chat.err.other';
}

/** Why a turn failed, in words, with the provider's own message as detail and Retry. */
export function TurnFailure({ error, onRetry }: { error: TurnError; onRetry?: () => void }) {
  const t = useT();
  if (error.code === 'cancelled') {
    return (
      <div className="turn-note" role="status">
        {t('chat.stopped')}
        {onRetry && (
          <button type="button" className="btn btn-small" onClick={onRetry}>
            {t('common.retry')}
          </button>
        )}
      </div>
    );
  }
  return (
    <div className="banner banner-error turn-failure" role="alert">
      <div>
        <strong>{t(errorKey(error.code))}</strong>
        {error.message && (
          <p className="small">
            {t('chat.errDetail', { message: error.message })} <span className="mono">({error.code})</span>
          </p>
        )}
      </div>
      {onRetry && (
        <button type="button" className="btn btn-small" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}
