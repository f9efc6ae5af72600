import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import type { DataPaths } from './data-dir.js';

/** A folder name in `trash/` that sorts by time and never collides. */
export function trashEntryName(label: string): string {
  return `${label}-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
}

/**
 * Keeps the previous version of something about to be replaced or removed: writes `files` into a new
 * folder under `trash/` (each file atomically, mode 0600: tool-server env values may be secrets).
 * Returns the folder, relative to the data directory.
 */
export async function keepInTrash(paths: DataPaths, label: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(paths.trashDir, trashEntryName(label));
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [name, content] of Object.entries(files)) await writeFileAtomic(path.join(dir, name), content, { mode: 0o600 });
  return path.relative(paths.root, dir);
}

/**
 * Moves a folder into `trash/` inside the data directory instead of destroying it. Returns the new
 * place, relative to the data directory, or null when the folder was already gone.
 */
export async function moveToTrash(paths: DataPaths, source: string, label: string): Promise<string | null> {
  await fs.mkdir(paths.trashDir, { recursive: true, mode: 0o700 });
  const target = path.join(paths.trashDir, trashEntryName(label));
  try {
    await fs.rename(source, target);
    return path.relative(paths.root, target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
