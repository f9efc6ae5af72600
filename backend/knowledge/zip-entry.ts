import { inflateRawSync } from 'node:zlib';

// Just enough of ZIP (PKWARE APPNOTE 4.3: end of central directory, central directory, local
// header) to take one entry out of a DOCX, without a dependency. Inflation is capped: a small
// archive may expand to gigabytes.

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export class ZipError extends Error {}

function findEnd(buf: Buffer): number {
  const min = Math.max(0, buf.length - 22 - 0xffff);
  for (let i = buf.length - 22; i >= min; i--) if (buf.readUInt32LE(i) === EOCD) return i;
  throw new ZipError('no end of central directory');
}

/** Names of the entries of an archive (empty when the bytes are not a ZIP). */
export function zipNames(buf: Buffer): string[] {
  try {
    return [...entries(buf)].map((e) => e.name);
  } catch {
    return [];
  }
}

function* entries(buf: Buffer): Generator<{ name: string; method: number; size: number; compressed: number; local: number }> {
  const end = findEnd(buf);
  const count = buf.readUInt16LE(end + 10);
  let p = buf.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== CENTRAL) throw new ZipError('damaged central directory');
    const nameLen = buf.readUInt16LE(p + 28);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    yield {
      name,
      method: buf.readUInt16LE(p + 10),
      compressed: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      local: buf.readUInt32LE(p + 42),
    };
    p += 46 + nameLen + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
  }
}

/** The bytes of entry `name`, or undefined when the archive has none; throws on damage or a bomb. */
export function zipEntry(buf: Buffer, name: string, maxBytes: number): Buffer | undefined {
  for (const e of entries(buf)) {
    if (e.name !== name) continue;
    if (e.local + 30 > buf.length || buf.readUInt32LE(e.local) !== LOCAL) throw new ZipError('damaged local header');
    const start = e.local + 30 + buf.readUInt16LE(e.local + 26) + buf.readUInt16LE(e.local + 28);
    const data = buf.subarray(start, start + e.compressed);
    if (e.method === 0) return Buffer.from(data);
    if (e.method !== 8) throw new ZipError(`unsupported compression method ${e.method}`);
    try {
      return inflateRawSync(data, { maxOutputLength: maxBytes });
    } catch (err) {
      throw new ZipError(`${name} could not be inflated: ${(err as Error).message}`);
    }
  }
  return undefined;
}
