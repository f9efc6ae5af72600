import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { z } from 'zod';
import { DATA_PREFIX, EXCLUDED_TOP, FORMAT, IDENTITY_TOP, isDerivedTop, MANIFEST_ENTRY, type Manifest } from './snapshot-format.js';

/**
 * Format 1, written before DESIGN 16: the data entries first, `manifest.json` last, `selfhost/`
 * (devices, credentials, TLS key) and the search index included, no node id in the manifest.
 * Such a snapshot is read twice: this first pass unpacks nothing, it only reads the manifest (and
 * `selfhost/pairing.json` for the node id); the second pass is the usual one, with every name and
 * size known before a byte is written, and the identity entries skipped.
 */
const LegacyManifest = z.object({
  format: z.literal(1),
  created_at: z.string(),
  kind: z.string(),
  version: z.string(),
  dirs: z.array(z.string()),
  files: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative(), mode: z.number().int(), sha256: z.string() })),
});

export interface LegacyPlan {
  /** The manifest as format 2 would have it: content only, with the node id from the snapshot's pairing file. */
  manifest: Manifest;
  /** The manifest entry's bytes: the second pass must meet the same ones. */
  manifestBytes: Buffer;
  /** Paths under `data/` the second pass skips (identity, derived, never-snapshotted entries). */
  skip: Set<string>;
  /** Every entry the archive lists (skipped ones too), for the byte cap of the second pass. */
  listed: { dirs: string[]; files: { size: number }[] };
}

const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
const MAX_PAIRING_BYTES = 1024 * 1024;
const PAIRING_ENTRY = `${DATA_PREFIX}${IDENTITY_TOP}/pairing.json`;
/** The first pass reads without writing; still, it stops past this many unpacked bytes (a bomb). */
const FIRST_PASS_MIN = 256 * 1024 * 1024;
const FIRST_PASS_RATIO = 200;

class Counter extends Transform {
  private seen = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) return done(new Error(`it unpacks past ${this.limit} bytes before its manifest`));
    done(null, chunk);
  }
}

/** True for a name a content restore never writes: identity and trust state, derived, excluded. */
function notContent(rel: string): boolean {
  const top = rel.split('/')[0];
  return top === IDENTITY_TOP || EXCLUDED_TOP.has(top) || isDerivedTop(top);
}

/** First pass over a format-1 snapshot; throws an Error naming the problem (the caller words it). */
export async function readLegacyManifest(file: string): Promise<LegacyPlan> {
  const compressed = (await fs.stat(file)).size;
  let manifestBytes: Buffer | undefined;
  let pairing: Buffer | undefined;
  const problems: string[] = [];
  const collect = (entry: ReadEntry, keep: (b: Buffer) => void) => {
    const chunks: Buffer[] = [];
    entry.on('data', (c: Buffer) => chunks.push(c));
    entry.on('end', () => keep(Buffer.concat(chunks)));
  };
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry) => {
      if (entry.path === MANIFEST_ENTRY) {
        if (manifestBytes || entry.size > MAX_MANIFEST_BYTES) problems.push('its manifest.json is repeated or too large');
        else return collect(entry, (b) => (manifestBytes = b));
      } else if (entry.path === PAIRING_ENTRY && entry.size <= MAX_PAIRING_BYTES) return collect(entry, (b) => (pairing = b));
      entry.resume();
    },
  });
  const input = createReadStream(file);
  const gunzip = createGunzip();
  const counter = new Counter(Math.max(FIRST_PASS_MIN, compressed * FIRST_PASS_RATIO));
  try {
    await new Promise<void>((resolve, reject) => {
      input.on('error', reject);
      gunzip.on('error', reject);
      counter.on('error', reject);
      parser.on('error', reject);
      parser.on('end', resolve);
      input.pipe(gunzip).pipe(counter).pipe(parser);
    });
  } finally {
    for (const s of [input, gunzip, counter]) s.destroy();
  }
  if (problems.length > 0) throw new Error(problems[0]);
  if (!manifestBytes) throw new Error('it has no manifest.json (not a backup of this service)');
  let old: z.infer<typeof LegacyManifest>;
  try {
    old = LegacyManifest.parse(JSON.parse(manifestBytes.toString('utf8')));
  } catch (err) {
    throw new Error(`its manifest.json (format 1) is invalid: ${(err as Error).message.slice(0, 300)}`, { cause: err });
  }
  // The node it was taken on, from its own pairing file (checked against the manifest's checksum).
  let nodeId: string | null = null;
  const pairingListed = old.files.find((f) => `${DATA_PREFIX}${f.path}` === PAIRING_ENTRY);
  if (pairing && pairingListed && createHash('sha256').update(pairing).digest('hex') === pairingListed.sha256) {
    try {
      const id = (JSON.parse(pairing.toString('utf8')) as { node_id?: unknown }).node_id;
      if (typeof id === 'string' && id) nodeId = id;
    } catch {
      // unreadable: the node is unknown, the snapshot counts as another node's
    }
  }
  const skip = new Set([...old.dirs, ...old.files.map((f) => f.path)].filter(notContent));
  return {
    manifest: {
      format: FORMAT,
      created_at: old.created_at,
      kind: old.kind,
      version: old.version,
      node_id: nodeId,
      dirs: old.dirs.filter((d) => !skip.has(d)),
      files: old.files.filter((f) => !skip.has(f.path)),
    },
    manifestBytes,
    skip,
    listed: { dirs: old.dirs, files: old.files },
  };
}
