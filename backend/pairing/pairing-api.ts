// The pairing HTTP contract (spec 3, DESIGN 4) as types, for clients: the connect screen and the
// desktop shell import these type-only.

import { z } from 'zod';

export interface PairingStatus {
  bound: boolean;
  pairing_required: boolean;
  pairing_expires_at: string | null;
  display_name: string | null;
  bootstrap_mode: 'local' | 'managed';
  /** Identifies this backend across addresses and ports (clients key their credential by it). */
  node_id: string;
  /** Only over TLS: `SHA256:AB:CD:…` of the served certificate, as in the `tls fingerprint:` log line. */
  tls_fingerprint?: string;
}

/** DESIGN 16: an owner may do everything; a member uses the assistant but changes no trust or tool settings. */
export const DEVICE_ROLES = ['owner', 'member'] as const;
export type DeviceRole = (typeof DEVICE_ROLES)[number];

export interface ClaimInput {
  pairing_code?: string;
  bootstrap_secret?: string;
  display_name?: string;
}

/** A paired device as `GET /api/selfhost/devices` lists it. */
export interface DeviceInfo {
  id: string;
  name: string;
  paired_at: string;
  last_seen_at: string | null;
  /** True for the device whose credential made the request. */
  current: boolean;
  role: DeviceRole;
  /** The device whose invite this one redeemed (null: it claimed the pairing code, or paired before roles). */
  invited_by: string | null;
  invited_by_name: string | null;
}

export interface DevicesResponse {
  devices: DeviceInfo[];
}

/** `POST /api/selfhost/devices/invite`: a one-time 6-digit code, valid 10 minutes. */
export interface InviteResponse {
  code: string;
  expires_at: string;
  /** The role the redeeming device gets. */
  role: DeviceRole;
}

/** `POST /api/pairing/claim` and `POST /api/pairing/join`. */
export interface PairedResponse {
  credential: string;
  node_id: string;
  device_id: string;
  role: DeviceRole;
}

const DeviceName = z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

export const InviteRequestSchema = z.object({
  name: DeviceName.optional(),
  // Member unless the inviting owner asks for another owner.
  role: z.enum(DEVICE_ROLES, { error: 'role must be "owner" or "member"' }).default('member'),
});

export const JoinRequestSchema = z.object({
  invite_code: z
    .string({ error: 'invite_code is required: the 6-digit code shown by a paired device' })
    .max(64, 'invite_code must be 6 digits'),
  device_name: DeviceName.optional(),
});

export type JoinRequest = z.infer<typeof JoinRequestSchema>;
