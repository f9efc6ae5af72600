import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { createGzip, type Gzip } from 'node:zlib';
import { Header, ReadEntry, WriteEntryTar } from 'tar';
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

/** Two zero blocks end a tar archive. */
const END_OF_ARCHIVE = Buffer.alloc(1024);

/**
 * Appends one entry from memory: tar's WriteEntryTar encodes the header (pax for long names) and the
 * padded body. Entries go one after the other, each complete before the next (tar's Pack reorders
 * entries that end out of order), and the next waits while gzip is full: one file in memory at a time.
 */
async function add(gzip: Gzip, header: ConstructorParameters<typeof Header>[0], body?: Buffer): Promise<void> {
  const entry = new ReadEntry(new Header(header));
  const writer = new WriteEntryTar(entry, { portable: true });
  const done = new Promise<void>((resolve, reject) => {
    writer.on('end', resolve);
    writer.on('error', reject);
  });
  writer.on('data', (chunk: Buffer) => gzip.write(chunk));
  if (body) entry.write(body);
  entry.end();
  await done;
  if (gzip.writableNeedDrain) await once(gzip, 'drain');
}

/**
 * Writes a gzip'd tar snapshot of the data directory to `target` (mode 0600, via a temporary file
 * and rename, so a crash never leaves a torn snapshot under a snapshot's name). Each file is read
 * once: the bytes hashed are the bytes archived, even while the service keeps writing.
 */
export async function writeSnapshot(root: string, target: string, kind: BackupKind, at: Date): Promise<number> {
  const tree = await collect(root);
  const temp = path.join(path.dirname(target), `${TEMP_PREFIX}${path.basename(target)}-${randomBytes(6).toString('hex')}`);
  const gzip = createGzip();
  const out = createWriteStream(temp, { mode: 0o600, flags: 'wx' });
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
    gzip.on('error', reject);
  });
  gzip.pipe(out);
  try {
    const manifest: Manifest = { format: FORMAT, created_at: at.toISOString(), kind, version: VERSION, dirs: tree.dirs, files: [] };
    for (const dir of tree.dirs) await add(gzip, { path: `${DATA_PREFIX}${dir}/`, type: 'Directory', mode: 0o700, mtime: at });
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
      await add(gzip, { path: `${DATA_PREFIX}${rel}`, type: 'File', size: body.length, mode, mtime: at }, body);
    }
    const text = Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`);
    await add(gzip, { path: MANIFEST_ENTRY, type: 'File', size: text.length, mode: 0o600, mtime: at }, text);
    gzip.end(END_OF_ARCHIVE);
    await done;
    const handle = await fs.open(temp, 'r');
    await handle.sync().finally(() => handle.close());
    await fs.rename(temp, target);
    return (await fs.stat(target)).size;
  } catch (err) {
    gzip.destroy();
    out.destroy();
    await fs.rm(temp, { force: true });
    throw err;
  }
}
