import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { chunkSegments, type ChunkDraft, type ChunkingOptions, type Segment } from './chunker.js';
import { MAX_FILE_BYTES } from './kb-files.js';
import { ParseError, markdownSegments, parseDocument } from './parse-docs.js';
import { detectDocType, type DocType } from './source-type.js';

// What the parse worker does for one input (DESIGN 13): read the bytes, decide their type, parse
// and chunk them, and hand the chunks back in slices. It runs in a worker thread (parse-worker.ts)
// so that a 100 MiB PDF or CSV never holds the backend's event loop; the bytes are read here, so
// they never cross threads, and only the chunks are copied back.

export interface ParseJob {
  /** A stored upload or a folder's file, read by the worker. */
  file?: string;
  /** Markdown already in hand (a URL's page). */
  markdown?: string;
  /** The name the type and the citations use (a folder file: its path in the folder). */
  name: string;
  /** The type decided at upload; absent: decided here from the bytes. */
  docType?: DocType;
  chunking: ChunkingOptions;
  /** A folder file's last known hash: when the bytes still hash to it, nothing is parsed. */
  knownSha256?: string;
}

export type ParseMessage =
  | { type: 'chunks'; chunks: ChunkDraft[] }
  | { type: 'done'; sha256: string; size: number; total: number; unchanged: boolean }
  | { type: 'failed'; code: string; message: string; stack?: string };

export type ParseDone = Extract<ParseMessage, { type: 'done' }>;

/**
 * About 2 MB of text per slice: each is one transaction on the main thread (tens of milliseconds).
 * Fewer, larger slices store faster (each commit adds an FTS5 segment); smaller ones hold it less.
 */
export const SLICE_CHUNKS = 1000;

class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function readInput(job: ParseJob): Promise<Buffer> {
  if (job.markdown !== undefined) return Buffer.from(job.markdown, 'utf8');
  const bytes = await fs.readFile(job.file ?? '').catch((err: NodeJS.ErrnoException) => {
    throw new JobFailure('file_missing', `${job.name} cannot be read: ${err.code ?? err.message}`);
  });
  if (bytes.length > MAX_FILE_BYTES) throw new JobFailure('unsupported_file', `${job.name} is larger than 100 MiB.`);
  return bytes;
}

async function segmentsOf(job: ParseJob, bytes: Buffer): Promise<Segment[]> {
  if (job.markdown !== undefined) return markdownSegments(job.markdown, false);
  let type = job.docType;
  if (!type) {
    const d = detectDocType(bytes, job.name);
    if (!d.ok) throw new JobFailure('unsupported_file', d.message);
    type = d.type;
  }
  try {
    return await parseDocument(type, bytes, job.name, job.chunking.tokens);
  } catch (err) {
    if (err instanceof ParseError) throw new JobFailure('parse_failed', err.message);
    // A bug or a hostile shape the parser did not foresee (a stack overflow on deep nesting…).
    throw new JobFailure('parse_failed', `${job.name} could not be parsed: ${(err as Error).message}`);
  }
}

/** Runs one job, posting the chunks in slices, then `done` (or `failed`). */
export async function runParseJob(job: ParseJob, post: (m: ParseMessage) => void): Promise<void> {
  try {
    const bytes = await readInput(job);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (job.knownSha256 === sha256) {
      post({ type: 'done', sha256, size: bytes.length, total: 0, unchanged: true });
      return;
    }
    const segments = await segmentsOf(job, bytes);
    // Slices go out while the rest is still being cut: the main thread stores one as the next is made.
    let slice: ChunkDraft[] = [];
    let total = 0;
    for (const seg of segments) {
      for (const c of chunkSegments([seg], job.chunking)) slice.push(c);
      if (slice.length >= SLICE_CHUNKS) {
        total += slice.length;
        post({ type: 'chunks', chunks: slice });
        slice = [];
      }
    }
    if (slice.length) post({ type: 'chunks', chunks: slice });
    total += slice.length;
    post({ type: 'done', sha256, size: bytes.length, total, unchanged: false });
  } catch (err) {
    if (err instanceof JobFailure) post({ type: 'failed', code: err.code, message: err.message });
    else post({ type: 'failed', code: 'parse_failed', message: (err as Error).message, stack: (err as Error).stack });
  }
}
