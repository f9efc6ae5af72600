import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip, type Gzip } from 'node:zlib';
import { Header, ReadEntry, WriteEntryTar } from 'tar';
import { TEMP_PREFIX } from '../data/atomic-write.js';
import { VERSION } from '../version.js';
import type { BackupKind } from './backup-api.js';
import { DATA_PREFIX, EXCLUDED_TOP, FORMAT, IDENTITY_TOP, isDerivedTop, MANIFEST_ENTRY, type Manifest } from './snapshot-format.js';
import { isSqliteCompanion, sqliteCopy } from './sqlite-copy.js';

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
      // Identity and trust state is never restored, derived files rebuild: neither is in a snapshot.
      if (!rel && (EXCLUDED_TOP.has(entry.name) || entry.name === IDENTITY_TOP || isDerivedTop(entry.name))) continue;
      // In-flight atomic writes are not data; links are never written by the service.
      if (entry.name.startsWith(TEMP_PREFIX) || isSqliteCompanion(entry.name)) continue;
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

async function write(gzip: Gzip, chunk: Buffer): Promise<void> {
  if (!gzip.write(chunk)) await once(gzip, 'drain');
}

/**
 * Appends one entry: tar's WriteEntryTar encodes the header (pax for long names) and pads the body.
 * The body streams in (`body` yields exactly `size` bytes), waiting while gzip is full, so a file of
 * any size passes with one chunk in memory.
 */
async function add(gzip: Gzip, header: ConstructorParameters<typeof Header>[0], body?: AsyncIterable<Buffer>): Promise<void> {
  const entry = new ReadEntry(new Header(header));
  const writer = new WriteEntryTar(entry, { portable: true });
  const out: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    writer.on('end', resolve);
    writer.on('error', reject);
  });
  writer.on('data', (chunk: Buffer) => out.push(chunk));
  const flush = async () => {
    for (const chunk of out.splice(0)) await write(gzip, chunk);
  };
  if (body) {
    for await (const chunk of body) {
      entry.write(chunk);
      await flush();
    }
  }
  entry.end();
  await done;
  await flush();
}

/** The node id of the data directory (from `selfhost/pairing.json`), or null when it has none. */
export async function readNodeId(root: string): Promise<string | null> {
  try {
    const parsed = JSON.parse(await fs.readFile(path.join(root, IDENTITY_TOP, 'pairing.json'), 'utf8')) as { node_id?: unknown };
    return typeof parsed.node_id === 'string' && parsed.node_id ? parsed.node_id : null;
  } catch {
    return null;
  }
}

/**
 * Archives one file: its first `size` bytes (stat at open; the service only ever appends to a file
 * in place or replaces it by rename, so these bytes are one consistent state), hashed as they pass.
 * Null when the file went away before it was opened. SQLite databases go through the database's
 * own copy, never a byte copy of a live file.
 */
async function addFile(gzip: Gzip, root: string, rel: string, at: Date, scratch: string): Promise<Manifest['files'][number] | null> {
  const abs = path.join(root, rel);
  const copy = await sqliteCopy(abs, scratch);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(copy ?? abs, 'r');
  } catch (err) {
    // Removed between the listing and the read (a session deleted meanwhile): not part of this state.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const stat = await handle.stat();
    const mode = copy ? (await fs.stat(abs)).mode & 0o777 : stat.mode & 0o777;
    const size = stat.size;
    const hash = createHash('sha256');
    async function* body(): AsyncIterable<Buffer> {
      let got = 0;
      if (size > 0) {
        for await (const chunk of handle.createReadStream({
          start: 0,
          end: size - 1,
          autoClose: false,
          highWaterMark: 1024 * 1024,
        }) as AsyncIterable<Buffer>) {
          got += chunk.length;
          hash.update(chunk);
          yield chunk;
        }
      }
      if (got !== size) throw new Error(`${rel} shrank while it was being archived`);
    }
    await add(gzip, { path: `${DATA_PREFIX}${rel}`, type: 'File', size, mode, mtime: at }, body());
    return { path: rel, size, mode, sha256: hash.digest('hex') };
  } finally {
    await handle.close();
    if (copy) await fs.rm(copy, { force: true });
  }
}

/** Gzip'd tar entries into `file`; `fill` adds them, the end-of-archive blocks only when `last`. */
async function gzipFile(file: string, fill: (gzip: Gzip) => Promise<void>, last: boolean): Promise<void> {
  // Level 1: a snapshot of many GB is CPU-bound on deflate; the size gained by higher levels is small.
  const gzip = createGzip({ level: 1 });
  const out = createWriteStream(file, { mode: 0o600, flags: 'wx' });
  const done = pipeline(gzip, out);
  try {
    await fill(gzip);
    gzip.end(last ? END_OF_ARCHIVE : undefined);
  } catch (err) {
    gzip.destroy(err as Error);
    await done.catch(() => undefined);
    throw err;
  }
  await done;
}

/**
 * Writes a gzip'd tar snapshot of the data directory to `target` (mode 0600, via a temporary file
 * and rename, so a crash never leaves a torn snapshot under a snapshot's name). The data goes to a
 * scratch file first; the snapshot is then the manifest (its own gzip member) followed by those
 * bytes: one gzip stream with the manifest in front. Each file is read once.
 */
export async function writeSnapshot(root: string, target: string, kind: BackupKind, at: Date): Promise<number> {
  const tree = await collect(root);
  const dir = path.dirname(target);
  const tag = `${path.basename(target)}-${randomBytes(6).toString('hex')}`;
  const dataPart = path.join(dir, `${TEMP_PREFIX}${tag}.data`);
  const temp = path.join(dir, `${TEMP_PREFIX}${tag}`);
  const manifest: Manifest = {
    format: FORMAT,
    created_at: at.toISOString(),
    kind,
    version: VERSION,
    node_id: await readNodeId(root),
    dirs: tree.dirs,
    files: [],
  };
  try {
    await gzipFile(
      dataPart,
      async (gzip) => {
        for (const d of tree.dirs) await add(gzip, { path: `${DATA_PREFIX}${d}/`, type: 'Directory', mode: 0o700, mtime: at });
        for (const rel of tree.files) {
          const listed = await addFile(gzip, root, rel, at, dataPart);
          if (listed) manifest.files.push(listed);
        }
      },
      true,
    );
    const text = Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`);
    async function* once_(): AsyncIterable<Buffer> {
      yield text;
    }
    await gzipFile(
      temp,
      (gzip) => add(gzip, { path: MANIFEST_ENTRY, type: 'File', size: text.length, mode: 0o600, mtime: at }, once_()),
      false,
    );
    await pipeline(createReadStream(dataPart), createWriteStream(temp, { flags: 'a' }));
    const handle = await fs.open(temp, 'r');
    await handle.sync().finally(() => handle.close());
    await fs.rename(temp, target);
    return (await fs.stat(target)).size;
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  } finally {
    await fs.rm(dataPart, { force: true });
  }
}
