import type { DeviceRole } from './pairing-api.js';
import { newPairingCode, sha256Hex, digestEquals } from './secrets.js';

export const INVITE_TTL_MS = 10 * 60 * 1000;
/** Enough for a household; an older pending invite makes room for a new one. */
const MAX_PENDING = 10;

interface Invite {
  digest: string;
  name: string | null;
  role: DeviceRole;
  /** The device that asked for the invite (the redeeming device's `invited_by`). */
  invitedBy: string;
  expiresAtMs: number;
}

export type RedeemedInvite = Pick<Invite, 'name' | 'role' | 'invitedBy'>;

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

  create(name: string | null, role: DeviceRole, invitedBy: string): { code: string; expiresAtMs: number } {
    this.prune();
    let code = newPairingCode();
    while (this.pending.some((i) => digestEquals(code, i.digest))) code = newPairingCode();
    const invite: Invite = { digest: sha256Hex(code), name, role, invitedBy, expiresAtMs: this.now() + this.ttlMs };
    this.pending = [...this.pending, invite].slice(-MAX_PENDING);
    return { code, expiresAtMs: invite.expiresAtMs };
  }

  /** Consumes the invite `code` names, synchronously (two concurrent joins: one wins). */
  redeem(code: string): RedeemedInvite | undefined {
    this.prune();
    let found: Invite | undefined;
    for (const invite of this.pending) if (digestEquals(code, invite.digest)) found = invite;
    if (!found) return undefined;
    this.pending = this.pending.filter((i) => i !== found);
    return { name: found.name, role: found.role, invitedBy: found.invitedBy };
  }

  /** Invites issued by revoked devices die with them. */
  dropFrom(deviceIds: readonly string[]): void {
    this.pending = this.pending.filter((i) => !deviceIds.includes(i.invitedBy));
  }

  clear(): void {
    this.pending = [];
  }

  private prune(): void {
    const now = this.now();
    this.pending = this.pending.filter((i) => i.expiresAtMs > now);
  }
}
