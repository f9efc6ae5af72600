import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { Header, Pack, ReadEntry } from 'tar';
import { TEMP_PREFIX } from '../data/atomic-write.js';
import { VERSION } from '../version.js';
import type { BackupKind } from './backup-api.js';
import { DATA_PREFIX, EXCLUDED_TOP, FORMAT, INSTANCE_LOCK, MANIFEST_ENTRY, type Manifest } from './snapshot-format.js';

interface Tree {
  dirs: string[];
  files: string[];
}

/** Every folder and regular file of the data directory a snapshot holds (relative, `/`-separated). */
async function collect(root: string): Promise<Tree> {
  const tree: Tree = { dirs: [], files: [] };
  const walk = async (rel: string): Promise<void> => {
    const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (!rel && EXCLUDED_TOP.has(entry.name)) continue;
      // In-flight atomic writes and the live lock are not data; links are never written by the service.
      if (entry.name.startsWith(TEMP_PREFIX) || child === INSTANCE_LOCK) continue;
      if (entry.isDirectory()) {
        tree.dirs.push(child);
        await walk(child);
      } else if (entry.isFile()) tree.files.push(child);
    }
  };
  await walk('');
  return tree;
}

function entryFor(header: ConstructorParameters<typeof Header>[0], body?: Buffer): ReadEntry {
  const entry = new ReadEntry(new Header(header));
  if (body) entry.write(body);
  entry.end();
  return entry;
}

/** Adds an entry, waiting while the archive stream is full (one file in memory at a time). */
async function add(pack: Pack, entry: ReadEntry): Promise<void> {
  if (!pack.write(entry)) await new Promise((resolve) => pack.once('drain', resolve));
}

/**
 * Writes a gzip'd tar snapshot of the data directory to `target` (mode 0600, via a temporary file
 * and rename, so a crash never leaves a torn snapshot under a snapshot's name). Each file is read
 * once: the bytes hashed are the bytes archived, even while the service keeps writing.
 */
export async function writeSnapshot(root: string, target: string, kind: BackupKind, at: Date): Promise<number> {
  const tree = await collect(root);
  const temp = path.join(path.dirname(target), `${TEMP_PREFIX}${path.basename(target)}-${randomBytes(6).toString('hex')}`);
  const pack = new Pack({ gzip: true, portable: true });
  const out = createWriteStream(temp, { mode: 0o600, flags: 'wx' });
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
    pack.on('error', reject);
  });
  pack.pipe(out);
  try {
    const manifest: Manifest = { format: FORMAT, created_at: at.toISOString(), kind, version: VERSION, dirs: tree.dirs, files: [] };
    for (const dir of tree.dirs) await add(pack, entryFor({ path: `${DATA_PREFIX}${dir}/`, type: 'Directory', mode: 0o700, mtime: at }));
    for (const rel of tree.files) {
      const abs = path.join(root, rel);
      let body: Buffer;
      let mode: number;
      try {
        [body, mode] = await Promise.all([fs.readFile(abs), fs.stat(abs).then((s) => s.mode & 0o777)]);
      } catch (err) {
        // Removed between the listing and the read (a session deleted meanwhile): not part of this state.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      manifest.files.push({ path: rel, size: body.length, mode, sha256: createHash('sha256').update(body).digest('hex') });
      await add(pack, entryFor({ path: `${DATA_PREFIX}${rel}`, type: 'File', size: body.length, mode, mtime: at }, body));
    }
    const text = Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`);
    await add(pack, entryFor({ path: MANIFEST_ENTRY, type: 'File', size: text.length, mode: 0o600, mtime: at }, text));
    pack.end();
    await done;
    const handle = await fs.open(temp, 'r');
    await handle.sync().finally(() => handle.close());
    await fs.rename(temp, target);
    return (await fs.stat(target)).size;
  } catch (err) {
    pack.destroy?.();
    out.destroy();
    await fs.rm(temp, { force: true });
    throw err;
  }
}
