import { digestEquals, newPairingCode, sha256Hex } from './secrets.js';

/**
 * The current 6-digit pairing code: held in memory only (never on disk), single use, and renewed
 * through `onExpired` when its time runs out unused.
 */
export class PairingCode {
  private code: string | null = null;
  private expiresAtMs = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly now: () => number,
    private readonly ttlMs: number,
  ) {}

  issue(onExpired: () => void): { code: string; expiresAtMs: number } {
    this.clear();
    this.code = newPairingCode();
    this.expiresAtMs = this.now() + this.ttlMs;
    // setTimeout holds at most ~24.8 days; the code lives 24 h.
    this.timer = setTimeout(onExpired, Math.max(0, this.expiresAtMs - this.now()));
    this.timer.unref();
    return { code: this.code, expiresAtMs: this.expiresAtMs };
  }

  matches(candidate: string): boolean {
    if (this.code === null || this.expiresAtMs <= this.now()) return false;
    return digestEquals(candidate, sha256Hex(this.code));
  }

  /** Spent (a successful claim) or no longer wanted (shutdown). */
  clear(): void {
    this.code = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
