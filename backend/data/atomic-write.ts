import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Prefix of temporary files; readers ignore names that start with it. */
export const TEMP_PREFIX = '.tmp-';

export interface WriteOptions {
  /** File mode at creation; 0o600 for anything holding a secret. */
  mode?: number;
}

/**
 * Writes a file so that a crash at any instant leaves either the old or the new content:
 * temporary file in the same directory, fsync, rename, then fsync of the directory.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
  const dir = path.dirname(file);
  const mode = options.mode ?? 0o600;
  const temp = path.join(dir, `${TEMP_PREFIX}${path.basename(file)}-${randomBytes(6).toString('hex')}`);
  const handle = await fs.open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
  await syncDirectory(dir);
}

/** Makes a rename or a new file in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return; // directories cannot be opened for fsync on Windows
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes temporary files a crash left behind (they are never read). */
export async function removeStaleTempFiles(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  await Promise.all(names.filter((n) => n.startsWith(TEMP_PREFIX)).map((n) => fs.rm(path.join(dir, n), { force: true })));
}

/** Reads a file, or undefined when it does not exist. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
