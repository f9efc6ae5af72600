import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { EXCLUDED_TOP, IDENTITY_TOP, type Manifest } from './snapshot-format.js';

/**
 * Puts a verified, staged snapshot in place of the data directory's content. `backups/`, `trash/`
 * and `selfhost/` (the node's identity and trust state: devices, credentials, TLS, tool-server
 * tokens, the live lock) stay as they are; derived files (the search index) go and are rebuilt.
 * Each top-level entry moves by rename (same file system: the staging folder lives in `backups/`),
 * the current ones aside first, so a failure midway moves them back. The caller took a snapshot of
 * the current state before calling this.
 */
export async function applyStaged(root: string, staging: string, manifest: Manifest): Promise<void> {
  for (const f of manifest.files) await fs.chmod(path.join(staging, f.path), f.mode & 0o777);
  const aside = path.join(root, 'backups', `.restore-old-${randomBytes(6).toString('hex')}`);
  await fs.mkdir(aside, { mode: 0o700 });
  const current = (await fs.readdir(root)).filter((name) => !EXCLUDED_TOP.has(name) && name !== IDENTITY_TOP);
  const incoming = await fs.readdir(staging);
  const movedAside: string[] = [];
  const movedIn: string[] = [];
  try {
    for (const name of current) {
      await fs.rename(path.join(root, name), path.join(aside, name));
      movedAside.push(name);
    }
    for (const name of incoming) {
      await fs.rename(path.join(staging, name), path.join(root, name));
      movedIn.push(name);
    }
  } catch (err) {
    for (const name of movedIn) await fs.rename(path.join(root, name), path.join(staging, name)).catch(() => undefined);
    for (const name of movedAside) await fs.rename(path.join(aside, name), path.join(root, name)).catch(() => undefined);
    await fs.rm(aside, { recursive: true, force: true });
    throw err;
  }
  await fs.rm(aside, { recursive: true, force: true });
  await fs.rm(staging, { recursive: true, force: true });
}
