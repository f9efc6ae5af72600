import { z } from 'zod';
import { readIfExists, writeFileAtomic } from '../data/atomic-write.js';

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** One paired device: its own credential (as a digest), revocable on its own. */
export const DeviceRecordSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  credential_sha256: Sha256Hex,
  paired_at: z.string(),
  last_seen_at: z.string().nullable().default(null),
  /** DESIGN 16. Devices paired before roles existed could do everything: they become owners. */
  role: z.enum(['owner', 'member']).default('owner'),
  /** The device whose invite this one redeemed; null for the claiming device (and older records). */
  invited_by: z.string().nullable().default(null),
});

export type DeviceRecord = z.infer<typeof DeviceRecordSchema>;

/** `selfhost/pairing.json`: never the credential or the code, only digests and counters. */
export const PairingFileSchema = z.object({
  node_id: z.string().min(1),
  /** Before devices: the single credential. Read once, moved into `devices`, never written again. */
  credential_sha256: Sha256Hex.nullable().optional(),
  devices: z.array(DeviceRecordSchema).default([]),
  paired_at: z.string().nullable().default(null),
  display_name: z.string().nullable().default(null),
  code_expires_at: z.string().nullable().default(null),
  code_failures: z.number().int().nonnegative().default(0),
  /** Timestamps (ms) of failed claims inside the global failure window. */
  recent_failures: z.array(z.number()).default([]),
  /** Digests of bootstrap secrets already used; never accepted again. */
  consumed_bootstrap_sha256: z.array(z.string()).default([]),
});

export type PairingFile = z.infer<typeof PairingFileSchema>;

export class PairingFileError extends Error {}

export function emptyPairingState(nodeId: string): PairingFile {
  return PairingFileSchema.parse({ node_id: nodeId });
}

/** A data directory from before devices: its one credential becomes the first device. */
function migrateSingleCredential(state: PairingFile, newId: () => string): PairingFile {
  const { credential_sha256: legacy, ...rest } = state;
  if (!legacy || state.devices.length > 0) return rest;
  const device: DeviceRecord = {
    id: newId(),
    name: state.display_name ?? 'First device',
    credential_sha256: legacy,
    paired_at: state.paired_at ?? new Date().toISOString(),
    last_seen_at: null,
    role: 'owner',
    invited_by: null,
  };
  return { ...rest, devices: [device] };
}

export async function loadPairingFile(file: string, newNodeId: () => string): Promise<PairingFile> {
  const text = await readIfExists(file);
  if (text === undefined) return emptyPairingState(newNodeId());
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PairingFileError(`${file}: ${(err as Error).message}`);
  }
  const parsed = PairingFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PairingFileError(`${file}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`);
  }
  return migrateSingleCredential(parsed.data, newNodeId);
}

export function savePairingFile(file: string, state: PairingFile): Promise<void> {
  return writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}
