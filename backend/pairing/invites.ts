import { newPairingCode, sha256Hex, digestEquals } from './secrets.js';

export const INVITE_TTL_MS = 10 * 60 * 1000;
/** Enough for a household; an older pending invite makes room for a new one. */
const MAX_PENDING = 10;

interface Invite {
  digest: string;
  name: string | null;
  expiresAtMs: number;
}

/**
 * One-time invite codes for a second device. Kept in memory only (a restart voids them: they live
 * minutes) and as digests, compared in constant time like the pairing code.
 */
export class InviteBook {
  private pending: Invite[] = [];

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = INVITE_TTL_MS,
  ) {}

  create(name: string | null): { code: string; expiresAtMs: number } {
    this.prune();
    let code = newPairingCode();
    while (this.pending.some((i) => digestEquals(code, i.digest))) code = newPairingCode();
    const invite = { digest: sha256Hex(code), name, expiresAtMs: this.now() + this.ttlMs };
    this.pending = [...this.pending, invite].slice(-MAX_PENDING);
    return { code, expiresAtMs: invite.expiresAtMs };
  }

  /** Consumes the invite `code` names, synchronously (two concurrent joins: one wins). */
  redeem(code: string): { name: string | null } | undefined {
    this.prune();
    let found: Invite | undefined;
    for (const invite of this.pending) if (digestEquals(code, invite.digest)) found = invite;
    if (!found) return undefined;
    this.pending = this.pending.filter((i) => i !== found);
    return { name: found.name };
  }

  clear(): void {
    this.pending = [];
  }

  private prune(): void {
    const now = this.now();
    this.pending = this.pending.filter((i) => i.expiresAtMs > now);
  }
}
