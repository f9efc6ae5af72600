import path from 'node:path';
import { z } from 'zod';

/** Inside a snapshot: the data files under `data/`, then `manifest.json` listing each with its SHA-256. */
export const DATA_PREFIX = 'data/';
export const MANIFEST_ENTRY = 'manifest.json';
export const FORMAT = 1;

/** Top-level names of the data directory a snapshot leaves out (and a restore leaves alone). */
export const EXCLUDED_TOP = new Set(['backups', 'trash']);
/** The running backend's lock: never snapshotted, never replaced by a restore. */
export const INSTANCE_LOCK = 'selfhost/instance.lock';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 hex digits');

export const Manifest = z.object({
  format: z.literal(FORMAT),
  created_at: z.string(),
  kind: z.string(),
  version: z.string(),
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
  return !EXCLUDED_TOP.has(parts[0]) && rel !== INSTANCE_LOCK;
}
