// The pairing HTTP contract (spec 3, DESIGN 4) as types, for clients: the connect screen and the
// desktop shell import these type-only.

export interface PairingStatus {
  bound: boolean;
  pairing_required: boolean;
  pairing_expires_at: string | null;
  display_name: string | null;
  bootstrap_mode: 'local' | 'managed';
  /** Identifies this backend across addresses and ports (clients key their credential by it). */
  node_id: string;
}

export interface ClaimInput {
  pairing_code?: string;
  bootstrap_secret?: string;
  display_name?: string;
}
