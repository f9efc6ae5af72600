import { ApiFailure } from '../api/client';
import type { Translate } from '../i18n/i18n';

// Shared by the first pairing (connect/) and a further device's join (devices/), so it sits here,
// below both, rather than in the pairing screen that the join form would otherwise import back.

/** Every claim outcome in words (spec section 7 plus the 429 throttle). */
export function claimMessage(err: unknown, t: Translate, baseUrl: string): string {
  if (!(err instanceof ApiFailure)) return t('common.error', { message: String((err as Error)?.message ?? err) });
  if (err.kind === 'network') return t('connect.unreachable', { url: baseUrl });
  switch (err.status) {
    case 401:
      return t('pair.wrong');
    case 409:
      return err.code === 'already_paired' ? t('pair.alreadyPaired') : t('pair.invalid', { message: err.message });
    case 429:
      return err.retryAfter ? t('pair.tooMany', { seconds: err.retryAfter }) : t('pair.tooManyNoWait');
    default:
      return t('pair.invalid', { message: err.message });
  }
}
