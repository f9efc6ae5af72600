import path from 'node:path';
import { z } from 'zod';

/**
 * Inside a snapshot: `manifest.json` first (every folder and file with its size and SHA-256), then
 * the data files under `data/`. The manifest comes first so a reader knows every name and size
 * before a byte is unpacked: names are checked as a whole, and no entry can unpack past its size.
 */
export const DATA_PREFIX = 'data/';
export const MANIFEST_ENTRY = 'manifest.json';
export const FORMAT = 2;

/** Top-level names of the data directory a snapshot leaves out (and a restore leaves alone). */
export const EXCLUDED_TOP = new Set(['backups', 'trash']);
/**
 * The node's identity and trust state (devices, credentials, TLS key, tool-server tokens, bootstrap
 * secret, node id): never in a snapshot, never replaced by a restore.
 */
export const IDENTITY_TOP = 'selfhost';
/** The running backend's lock: never snapshotted, never replaced by a restore. */
export const INSTANCE_LOCK = 'selfhost/instance.lock';
/** Derived files (rebuilt from the session logs when missing): left out of snapshots, dropped by a restore. */
export function isDerivedTop(name: string): boolean {
  return name === 'search-index.sqlite' || name.startsWith('search-index.sqlite-');
}

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 hex digits');

export const Manifest = z.object({
  format: z.literal(FORMAT, { error: `format must be ${FORMAT} (a snapshot of this version)` }),
  created_at: z.string(),
  kind: z.string(),
  version: z.string(),
  /** The node the snapshot was taken on (`selfhost/pairing.json`); null when it had none yet. */
  node_id: z.string().min(1).nullable(),
  dirs: z.array(z.string()),
  files: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative(), mode: z.number().int(), sha256: Sha256 })),
});
export type Manifest = z.infer<typeof Manifest>;

/**
 * A relative path from a snapshot is used only if it stays inside the data directory and names
 * nothing a snapshot never holds: no absolute path, no `..`, no empty or `.` segment, no backslash.
 */
export function isSafeRelative(rel: string): boolean {
  if (rel === '' || rel.includes('\0') || rel.includes('\\') || path.posix.isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) return false;
  const parts = rel.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return false;
  return !EXCLUDED_TOP.has(parts[0]) && parts[0] !== IDENTITY_TOP && !isDerivedTop(parts[0]);
}
