// The "Connect to another backend…" contract between main and the renderer: types only (the
// renderer imports them through app/ipc/contract.ts, so nothing here may pull in node:*).
import type { PairingStatus } from '../../backend/pairing/pairing-api.js';

/** What the user is shown before trusting a backend: who answered, and with which certificate. */
export interface RemoteProbe {
  origin: string;
  secure: boolean;
  /** `SHA256:AB:CD:…` of the certificate served (null over plain http). */
  fingerprint: string | null;
  /** The certificate's names and expiry, as Node reports them (null over plain http). */
  certificate: { names: string; valid_to: string } | null;
  status: PairingStatus;
  /**
   * Whether the backend's own `tls_fingerprint` equals the one served. A sanity check only: an
   * impostor can copy the real value, so the user still compares with the backend's log line.
   */
  status_agrees: boolean | null;
}

/** A paired remote as the renderer sees it: everything but the credential. */
export interface RemoteSummary {
  origin: string;
  /** The pinned certificate; null only for a plain-http backend. */
  fingerprint: string | null;
  node_id: string;
  device_id: string | null;
  display_name: string | null;
  paired_at: string;
  has_credential: boolean;
}

export type ProbeOutcome =
  | { ok: true; probe: RemoteProbe; warning: string | null; known: RemoteSummary | null }
  | { ok: false; reason: 'invalid' | 'scheme' | 'insecure' | 'unreachable'; message: string };

/** Why pairing with a remote failed; the renderer words each reason in the user's language. */
export type PairFailureReason = 'wrong_code' | 'throttled' | 'already_paired' | 'certificate_changed' | 'refused' | 'unreachable';

export type PairOutcome =
  { ok: true; remote: RemoteSummary } | { ok: false; reason: PairFailureReason; message: string; retry_after?: number };

/** A pinned backend presented another certificate: what the user is told, and what re-pairing replaces. */
export interface Refusal {
  origin: string;
  pinned: string;
  presented: string;
  pinned_at: string;
  message: string;
}

export type ActiveBackend =
  | { kind: 'local' }
  | { kind: 'remote'; remote: RemoteSummary; check: 'ok' }
  | { kind: 'remote'; remote: RemoteSummary; check: 'refused'; refusal: Refusal }
  | { kind: 'remote'; remote: RemoteSummary; check: 'unreachable'; message: string };

export interface RemotesState {
  active: ActiveBackend;
  remotes: RemoteSummary[];
}
