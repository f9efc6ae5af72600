export interface PairingCode {
  code: string;
  /** ISO timestamp as the backend logged it. */
  expiresAt: string;
}

const CODE_PREFIX = 'pairing code: ';
const PAIRED_PREFIX = 'paired with ';
const CODE_LINE = /^pairing code: (\d{6}) \(expires ([^)\s]+)\)$/;
const P = 'p'.charCodeAt(0);

/**
 * Follows the backend's documented log lines: the newest `pairing code:` line wins, a
 * `paired with` line clears it (the code was used), a later code line sets it again.
 */
export class PairingCodeTracker {
  private current: PairingCode | null = null;

  get value(): PairingCode | null {
    return this.current;
  }

  /** Returns true when the current code changed. Cheap for the millions of lines that are not ours. */
  observe(line: string): boolean {
    if (line.charCodeAt(0) !== P) return false;
    if (line.startsWith(CODE_PREFIX)) {
      const m = CODE_LINE.exec(line);
      if (!m) return false;
      if (this.current?.code === m[1] && this.current.expiresAt === m[2]) return false;
      this.current = { code: m[1], expiresAt: m[2] };
      return true;
    }
    if (line.startsWith(PAIRED_PREFIX) && this.current) {
      this.current = null;
      return true;
    }
    return false;
  }

  reset(): boolean {
    const changed = this.current !== null;
    this.current = null;
    return changed;
  }
}
