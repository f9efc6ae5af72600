import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { TEMP_PREFIX, readIfExists, syncDirectory, writeFileAtomic } from '../data/atomic-write.js';
import { ApiError } from '../http/errors.js';
import type { KnowledgeBase, SourceKind } from './knowledge-api.js';
import { detectDocType, type DocType } from './source-type.js';

// The files of a knowledge base: `kb.json` (the KB and the list of its sources: what the index is
// rebuilt from) and `files/<sha256>` (the bytes of uploads and notes, 0600).

export const MAX_FILE_BYTES = 100 * 1024 * 1024;

/** What kb.json keeps of a source: enough to ingest it again from nothing. */
export interface SourceSpec {
  id: string;
  kind: SourceKind;
  name: string;
  created_at: string;
  /** file and note: the stored bytes and their type. */
  sha256?: string;
  doc_type?: DocType;
  mime?: string;
  path?: string;
  include?: string[];
  exclude?: string[];
  url?: string;
}

export interface KbFile extends KnowledgeBase {
  sources: SourceSpec[];
}

export function kbView(kb: KbFile): KnowledgeBase {
  const { sources: _sources, ...view } = kb;
  return view;
}

export async function readKbFile(dir: string): Promise<KbFile | undefined> {
  const text = await readIfExists(path.join(dir, 'kb.json'));
  if (text === undefined) return undefined;
  const kb = JSON.parse(text) as KbFile;
  kb.sources ??= [];
  return kb;
}

export async function writeKbFile(dir: string, kb: KbFile): Promise<void> {
  await writeFileAtomic(path.join(dir, 'kb.json'), `${JSON.stringify(kb, null, 2)}\n`, { mode: 0o600 });
}

export function tooLarge(): ApiError {
  return new ApiError('payload_too_large', `Knowledge files may be at most ${MAX_FILE_BYTES / (1024 * 1024)} MiB.`);
}

/**
 * Streams an upload into `files/` under its SHA-256 (hashed on the way, fsynced, renamed), after its
 * type is decided from the bytes; a type we do not read is refused (415) and nothing is kept.
 */
export async function saveUpload(
  dir: string,
  name: string,
  body: AsyncIterable<Uint8Array>,
): Promise<{ sha256: string; size: number; type: DocType; mime: string }> {
  const filesDir = path.join(dir, 'files');
  await fs.mkdir(filesDir, { recursive: true, mode: 0o700 });
  const temp = path.join(filesDir, `${TEMP_PREFIX}upload-${randomBytes(8).toString('hex')}`);
  const handle = await fs.open(temp, 'wx+', 0o600);
  let kept = false;
  try {
    const hash = createHash('sha256');
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > MAX_FILE_BYTES) throw tooLarge();
      hash.update(chunk);
      parts.push(Buffer.from(chunk));
      await handle.write(chunk);
    }
    await handle.sync();
    await handle.close();
    const detected = detectDocType(Buffer.concat(parts), name);
    if (!detected.ok) throw new ApiError('unsupported_attachment', detected.message);
    const sha256 = hash.digest('hex');
    const file = path.join(filesDir, sha256);
    await fs.rename(temp, file);
    await syncDirectory(filesDir);
    kept = true;
    return { sha256, size, type: detected.type, mime: detected.mime };
  } finally {
    if (!kept) {
      await handle.close().catch(() => undefined);
      await fs.rm(temp, { force: true });
    }
  }
}

/** A note's text, stored like an upload. */
export async function saveText(dir: string, text: string): Promise<{ sha256: string; size: number }> {
  const bytes = Buffer.from(text, 'utf8');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const filesDir = path.join(dir, 'files');
  await fs.mkdir(filesDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(path.join(filesDir, sha256), bytes, { mode: 0o600 });
  return { sha256, size: bytes.length };
}
