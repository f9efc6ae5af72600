import { z } from 'zod';
import { readIfExists, writeFileAtomic } from '../data/atomic-write.js';

/** `selfhost/pairing.json`: never the credential or the code, only digests and counters. */
export const PairingFileSchema = z.object({
  node_id: z.string().min(1),
  credential_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .default(null),
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

export async function loadPairingFile(file: string, newNodeId: () => string): Promise<PairingFile> {
  const text = await readIfExists(file);
  if (text === undefined) return PairingFileSchema.parse({ node_id: newNodeId() });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PairingFileError(`${file}: ${(err as Error).message}`);
  }
  const parsed = PairingFileSchema.safeParse(json);
  if (!parsed.success) throw new PairingFileError(`${file}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

export function savePairingFile(file: string, state: PairingFile): Promise<void> {
  return writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}
