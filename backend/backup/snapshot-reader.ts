import { createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, promises as fs, ftruncateSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { listingProblem } from './portable-names.js';
import { SnapshotInvalidError } from './snapshot-errors.js';
import { readLegacyManifest, type LegacyPlan } from './snapshot-legacy.js';
import { DATA_PREFIX, isSafeRelative, Manifest, MANIFEST_ENTRY } from './snapshot-format.js';

/** The snapshot cannot be restored: unreadable, damaged, or not one of ours. Nothing was changed. */
export { SnapshotInvalidError };

const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
/** Room for an entry's header blocks (pax headers for long names included). */
const HEADER_ALLOWANCE = 4 * 512;
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);
/** The tar stream starts with the manifest's header, whose name field begins the block. */
const TAR_START = Buffer.from(`${MANIFEST_ENTRY}\0`, 'latin1');
const ZEROS = Buffer.alloc(64 * 1024);

/** Fails the stream once more bytes pass than `limit()` allows (the manifest's sizes, once known). */
class ByteCap extends Transform {
  private seen = 0;
  constructor(
    private readonly limit: () => number,
    private readonly manifestFirst: boolean,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (
      this.seen === 0 &&
      this.manifestFirst &&
      !chunk.subarray(0, TAR_START.length).equals(TAR_START.subarray(0, Math.min(chunk.length, TAR_START.length)))
    ) {
      return done(new SnapshotInvalidError('the snapshot does not start with manifest.json (not a backup of this version)'));
    }
    this.seen += chunk.length;
    if (this.seen > this.limit()) return done(new SnapshotInvalidError('the snapshot unpacks past the sizes its manifest lists'));
    done(null, chunk);
  }
}

interface Written {
  size: number;
  sha256: string;
}

/**
 * Copies one file entry into the staging folder, hashing the bytes as they pass; runs of zeros are
 * skipped (a sparse file stays sparse). Synchronous writes from the data events: the parser never
 * waits on us, and no entry slips past while a write is pending.
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
        const zero = chunk.length <= ZEROS.length && chunk.equals(ZEROS.subarray(0, chunk.length));
        if (!zero) writeSync(fd, chunk, 0, chunk.length, size);
        size += chunk.length;
      } catch (err) {
        entry.removeAllListeners('data');
        entry.resume();
        fail(err);
      }
    });
    entry.on('end', () => {
      try {
        ftruncateSync(fd, size);
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

/** The manifest, checked as a whole before any data entry is unpacked; throws naming the problem. */
function parseManifest(bytes: Buffer | Manifest): Manifest {
  let manifest: Manifest;
  try {
    manifest = Manifest.parse(Buffer.isBuffer(bytes) ? JSON.parse(bytes.toString('utf8')) : bytes);
  } catch (err) {
    throw new SnapshotInvalidError(`the snapshot's manifest.json is invalid: ${(err as Error).message.slice(0, 300)}`);
  }
  for (const rel of [...manifest.dirs, ...manifest.files.map((f) => f.path)]) {
    if (!isSafeRelative(rel)) throw new SnapshotInvalidError(`unsafe path "${DATA_PREFIX}${rel}"`);
  }
  const why = listingProblem(
    manifest.dirs,
    manifest.files.map((f) => f.path),
  );
  if (why) throw new SnapshotInvalidError(`${why}; it cannot be created on every system`);
  return manifest;
}

/** Bytes of tar stream the manifest allows: each entry's header and padded body, plus the end. */
function streamLimit(manifest: { dirs: unknown[]; files: { size: number }[] }, manifestSize: number): number {
  const padded = (n: number) => Math.ceil(n / 512) * 512;
  let total = HEADER_ALLOWANCE + padded(manifestSize) + 20 * 512;
  for (const f of manifest.files) total += HEADER_ALLOWANCE + padded(f.size);
  return total + manifest.dirs.length * HEADER_ALLOWANCE;
}

/**
 * Unpacks a snapshot into `staging` (a new folder) and checks it against its manifest: gzip only,
 * the manifest first (its names portable and free of collisions), every entry listed with its type
 * and size, none extra, each SHA-256 equal. Throws SnapshotInvalidError naming the first problem
 * (never anything else for what the archive holds); the caller removes `staging`.
 */
export async function unpackVerified(file: string, staging: string): Promise<Manifest> {
  const head = Buffer.alloc(GZIP_MAGIC.length);
  try {
    const handle = await fs.open(file, 'r');
    await handle.read(head, 0, head.length, 0).finally(() => handle.close());
  } catch (err) {
    throw new SnapshotInvalidError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (!head.equals(GZIP_MAGIC)) throw new SnapshotInvalidError('the snapshot is not gzip-compressed (only gzip snapshots are accepted)');
  // An older snapshot (format 1, the manifest last) is read twice: its manifest first, then the data.
  let legacy: LegacyPlan | undefined;
  if (!(await startsWithManifest(file))) {
    try {
      legacy = await readLegacyManifest(file);
    } catch (err) {
      throw new SnapshotInvalidError(`the snapshot is not a valid backup: ${(err as Error).message}`, { cause: err });
    }
  }
  await fs.mkdir(staging, { recursive: false, mode: 0o700 });

  const written = new Map<string, Written>();
  const dirs = new Set<string>();
  const pending: Promise<unknown>[] = [];
  const openFiles = new Set<number>();
  let manifest: Manifest | undefined = legacy && parseManifest(legacy.manifest);
  let listedFiles = new Map((manifest?.files ?? []).map((f) => [f.path, f]));
  let listedDirs = new Set(manifest?.dirs);
  let limit = legacy ? streamLimit(legacy.listed, legacy.manifestBytes.length) : MAX_MANIFEST_BYTES + HEADER_ALLOWANCE * 2;
  let problem: string | undefined;
  let first = !legacy;
  let legacyManifestSeen = false;
  const input = createReadStream(file);
  const gunzip = createGunzip();
  const cap = new ByteCap(() => limit, !legacy);
  const stop = (why: string) => {
    problem ??= why;
    // Nothing more is worth reading: the snapshot is refused.
    input.destroy();
  };

  const onEntry = (entry: ReadEntry): void => {
    const isFirst = first;
    first = false;
    if (isFirst) {
      if (entry.path !== MANIFEST_ENTRY || entry.type !== 'File')
        return stop(`unexpected entry "${entry.path}" (a snapshot starts with manifest.json)`);
      if (entry.size > MAX_MANIFEST_BYTES) return stop('the manifest is too large');
      const chunks: Buffer[] = [];
      entry.on('data', (c: Buffer) => chunks.push(c));
      entry.on('end', () => {
        try {
          manifest = parseManifest(Buffer.concat(chunks));
          limit = streamLimit(manifest, entry.size);
          listedFiles = new Map(manifest.files.map((f) => [f.path, f]));
          listedDirs = new Set(manifest.dirs);
        } catch (err) {
          stop((err as Error).message);
        }
      });
      return;
    }
    if (!manifest) return stop('the manifest was not read before the data');
    if (legacy && entry.path === MANIFEST_ENTRY && !legacyManifestSeen) {
      // The same bytes as the first pass read, or the file changed between the two.
      legacyManifestSeen = true;
      const chunks: Buffer[] = [];
      entry.on('data', (c: Buffer) => chunks.push(c));
      entry.on('end', () => !Buffer.concat(chunks).equals(legacy.manifestBytes) && stop('the manifest changed while it was read'));
      return;
    }
    if (!entry.path.startsWith(DATA_PREFIX)) return stop(`unexpected entry "${entry.path}"`);
    const rel = entry.path.slice(DATA_PREFIX.length).replace(/\/$/, '');
    // Identity and derived entries of an older snapshot: listed, never unpacked.
    if (legacy?.skip.has(rel)) return entry.resume();
    if (!isSafeRelative(rel)) return stop(`unsafe path "${entry.path}"`);
    if (entry.type === 'Directory') {
      if (!listedDirs.has(rel)) return stop(`folder "${rel}" is in the snapshot but not in its manifest`);
      mkdirSync(path.join(staging, rel), { recursive: true, mode: 0o700 });
      dirs.add(rel);
      return entry.resume();
    }
    if (entry.type !== 'File') return stop(`"${entry.path}" is a ${entry.type}, not a plain file`);
    const listed = listedFiles.get(rel);
    if (!listed) return stop(`"${rel}" is in the snapshot but not in its manifest`);
    if (entry.size !== listed.size) return stop(`"${rel}" holds ${entry.size} bytes, its manifest says ${listed.size}`);
    if (written.has(rel)) return stop(`"${rel}" appears twice`);
    written.set(rel, { size: -1, sha256: '' });
    pending.push(writeEntry(entry, path.join(staging, rel), openFiles).then((w) => written.set(rel, w)));
  };

  const parser = new Parser({
    strict: true,
    onReadEntry: (entry) => {
      if (problem) return entry.resume();
      try {
        onEntry(entry);
      } catch (err) {
        // The file system refused what the checks let through: the snapshot is refused, nothing thrown on.
        stop(`"${entry.path}" cannot be unpacked: ${(err as Error).message}`);
      }
      if (problem) entry.resume();
    },
  });

  try {
    await new Promise<void>((resolve, fail) => {
      input.on('error', fail);
      input.on('close', () => problem && resolve());
      gunzip.on('error', fail);
      cap.on('error', fail);
      parser.on('error', fail);
      // Done only when the tar parser has ended AND gunzip has ended: gunzip's end comes after every
      // member's CRC and length were checked, so acceptance never rests on the order of the two ends.
      let ends = 0;
      const ended = () => ++ends === 2 && resolve();
      parser.on('end', ended);
      gunzip.on('end', ended);
      input.pipe(gunzip).pipe(cap).pipe(parser);
    });
    if (!problem) await Promise.all(pending);
  } catch (err) {
    if (!problem) {
      if (err instanceof SnapshotInvalidError) problem = err.message;
      else {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR')
          throw new SnapshotInvalidError(`cannot read ${file}: ${(err as Error).message}`);
        throw new SnapshotInvalidError(`the snapshot is damaged: ${(err as Error).message}`);
      }
    }
  } finally {
    // A stopped or damaged stream ends mid-entry: that entry never ends, so nothing here waits for it.
    for (const fd of openFiles) closeSync(fd);
    openFiles.clear();
    for (const p of pending) p.catch(() => undefined);
    for (const s of [gunzip, cap]) s.destroy();
  }
  if (legacy && !legacyManifestSeen) problem ??= 'the manifest changed while it was read';
  if (problem) throw new SnapshotInvalidError(`the snapshot is not a valid backup: ${problem}`);
  return checkAgainstManifest(manifest, written, dirs);
}

/** Whether the tar stream inside starts with manifest.json (format 2); true when it cannot tell (the usual read says why). */
async function startsWithManifest(file: string): Promise<boolean> {
  const input = createReadStream(file);
  const gunzip = createGunzip();
  try {
    let head = Buffer.alloc(0);
    for await (const chunk of input.pipe(gunzip)) {
      head = Buffer.concat([head, chunk as Buffer]);
      if (head.length >= TAR_START.length) break;
    }
    return head.length < TAR_START.length || head.subarray(0, TAR_START.length).equals(TAR_START);
  } catch {
    return true;
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

function checkAgainstManifest(manifest: Manifest | undefined, written: Map<string, Written>, dirs: Set<string>): Manifest {
  if (!manifest) throw new SnapshotInvalidError('the snapshot has no manifest.json (not a backup of this service, or cut short)');
  for (const f of manifest.files) {
    const got = written.get(f.path);
    if (!got) throw new SnapshotInvalidError(`"${f.path}" is listed in the manifest but missing from the snapshot`);
    if (got.size !== f.size || got.sha256 !== f.sha256) throw new SnapshotInvalidError(`"${f.path}" fails its checksum (damaged)`);
  }
  for (const dir of manifest.dirs) {
    if (!dirs.has(dir)) throw new SnapshotInvalidError(`folder "${dir}" of the manifest is missing from the snapshot`);
  }
  return manifest;
}
