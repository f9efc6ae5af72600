import { createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, promises as fs, writeSync } from 'node:fs';
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

/**
 * Copies one file entry into the staging folder, hashing the bytes as they pass. Written
 * synchronously from the entry's data events: the parser then never waits on us, and no entry can
 * slip past while a write is pending (a restore is rare; the service restarts right after).
 */
function writeEntry(entry: ReadEntry, target: string, open: Set<number>): Promise<Written> {
  mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  const fd = openSync(target, 'wx', 0o600);
  open.add(fd);
  const hash = createHash('sha256');
  let size = 0;
  return new Promise((resolve, reject) => {
    const fail = (err: unknown) => {
      if (open.delete(fd)) closeSync(fd);
      reject(err as Error);
    };
    entry.on('data', (chunk: Buffer) => {
      try {
        hash.update(chunk);
        size += chunk.length;
        writeSync(fd, chunk);
      } catch (err) {
        entry.removeAllListeners('data');
        entry.resume();
        fail(err);
      }
    });
    entry.on('end', () => {
      try {
        open.delete(fd);
        closeSync(fd);
      } catch (err) {
        return reject(err as Error);
      }
      resolve({ size, sha256: hash.digest('hex') });
    });
    entry.on('error', fail);
  });
}

function readAll(entry: ReadEntry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    entry.on('data', (chunk: Buffer) => chunks.push(chunk));
    entry.on('end', () => resolve(Buffer.concat(chunks)));
    entry.on('error', reject);
  });
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
  const openFiles = new Set<number>();
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
        mkdirSync(path.join(staging, rel), { recursive: true, mode: 0o700 });
        return entry.resume();
      }
      if (entry.type !== 'File') return reject(entry, `"${entry.path}" is a ${entry.type}, not a plain file`);
      if (written.has(rel)) return reject(entry, `"${rel}" appears twice`);
      written.set(rel, { size: -1, sha256: '' });
      pending.push(writeEntry(entry, path.join(staging, rel), openFiles).then((w) => written.set(rel, w)));
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
    // A damaged stream stops mid-entry: that entry never ends, so nothing here waits for it.
    for (const fd of openFiles) closeSync(fd);
    openFiles.clear();
    for (const p of pending) p.catch(() => undefined);
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
