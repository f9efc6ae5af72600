import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import { DATA_PREFIX, isSafeRelative, Manifest, MANIFEST_ENTRY } from './snapshot-format.js';

/** The snapshot cannot be restored: unreadable, damaged, or not one of ours. Nothing was changed. */
export class SnapshotInvalidError extends Error {}

const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

interface Written {
  size: number;
  sha256: string;
}

/** Copies one file entry into the staging folder, hashing the bytes as they pass. */
async function writeEntry(entry: ReadEntry, target: string): Promise<Written> {
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  const handle = await fs.open(target, 'wx', 0o600);
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of entry) {
      hash.update(chunk);
      size += chunk.length;
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
  return { size, sha256: hash.digest('hex') };
}

async function readAll(entry: ReadEntry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * Unpacks a snapshot into `staging` (a new folder) and checks it against its manifest: every file
 * listed, none extra, each size and SHA-256 equal; only plain files and folders with safe relative
 * paths. Throws SnapshotInvalidError naming the first problem; the caller removes `staging`.
 */
export async function unpackVerified(file: string, staging: string): Promise<Manifest> {
  await fs.mkdir(staging, { recursive: false, mode: 0o700 });
  const written = new Map<string, Written>();
  const dirs = new Set<string>();
  const pending: Promise<unknown>[] = [];
  let manifestBytes: Buffer | undefined;
  let problem: string | undefined;
  const reject = (entry: ReadEntry, why: string) => {
    problem ??= why;
    entry.resume();
  };

  const parser = new Parser({
    strict: true,
    // Session logs compress very well; the data is the user's own, so only absurd ratios are refused.
    maxDecompressionRatio: 100_000,
    onReadEntry: (entry) => {
      if (problem) return entry.resume();
      if (entry.path === MANIFEST_ENTRY && entry.type === 'File') {
        if (entry.size > MAX_MANIFEST_BYTES) return reject(entry, 'the manifest is too large');
        pending.push(readAll(entry).then((b) => (manifestBytes = b)));
        return;
      }
      if (!entry.path.startsWith(DATA_PREFIX)) return reject(entry, `unexpected entry "${entry.path}"`);
      const rel = entry.path.slice(DATA_PREFIX.length).replace(/\/$/, '');
      if (!isSafeRelative(rel)) return reject(entry, `unsafe path "${entry.path}"`);
      if (entry.type === 'Directory') {
        dirs.add(rel);
        pending.push(fs.mkdir(path.join(staging, rel), { recursive: true, mode: 0o700 }));
        return entry.resume();
      }
      if (entry.type !== 'File') return reject(entry, `"${entry.path}" is a ${entry.type}, not a plain file`);
      if (written.has(rel)) return reject(entry, `"${rel}" appears twice`);
      written.set(rel, { size: -1, sha256: '' });
      pending.push(writeEntry(entry, path.join(staging, rel)).then((w) => written.set(rel, w)));
    },
  });

  try {
    await new Promise<void>((resolve, fail) => {
      const input = createReadStream(file);
      input.on('error', fail);
      parser.on('error', fail);
      parser.on('end', resolve);
      input.pipe(parser);
    });
    await Promise.all(pending);
  } catch (err) {
    await Promise.allSettled(pending);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR')
      throw new SnapshotInvalidError(`cannot read ${file}: ${(err as Error).message}`);
    throw new SnapshotInvalidError(`the snapshot is damaged: ${(err as Error).message}`);
  }
  if (problem) throw new SnapshotInvalidError(`the snapshot is not a valid backup: ${problem}`);
  return checkAgainstManifest(manifestBytes, written, dirs);
}

function checkAgainstManifest(bytes: Buffer | undefined, written: Map<string, Written>, dirs: Set<string>): Manifest {
  if (!bytes) throw new SnapshotInvalidError('the snapshot has no manifest.json (not a backup of this service, or cut short)');
  let manifest: Manifest;
  try {
    manifest = Manifest.parse(JSON.parse(bytes.toString('utf8')));
  } catch (err) {
    throw new SnapshotInvalidError(`the snapshot's manifest.json is invalid: ${(err as Error).message.slice(0, 200)}`);
  }
  const listed = new Set<string>();
  for (const f of manifest.files) {
    if (!isSafeRelative(f.path)) throw new SnapshotInvalidError(`the manifest names an unsafe path "${f.path}"`);
    listed.add(f.path);
    const got = written.get(f.path);
    if (!got) throw new SnapshotInvalidError(`"${f.path}" is listed in the manifest but missing from the snapshot`);
    if (got.size !== f.size || got.sha256 !== f.sha256) throw new SnapshotInvalidError(`"${f.path}" fails its checksum (damaged)`);
  }
  for (const rel of written.keys()) {
    if (!listed.has(rel)) throw new SnapshotInvalidError(`"${rel}" is in the snapshot but not in its manifest`);
  }
  for (const dir of manifest.dirs) {
    if (!isSafeRelative(dir) || !dirs.has(dir)) throw new SnapshotInvalidError(`folder "${dir}" of the manifest is missing or unsafe`);
  }
  return manifest;
}
