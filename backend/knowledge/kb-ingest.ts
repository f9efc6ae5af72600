import { promises as fs } from 'node:fs';
import path from 'node:path';
import { chunkSegments, type ChunkDraft } from './chunker.js';
import { embed, ProviderFailure, type ProviderTarget } from './embed-client.js';
import { walkFolder } from './folder-walk.js';
import { ftsAllOf } from './fts-query.js';
import type { KbFile, SourceSpec } from './kb-files.js';
import { MAX_FILE_BYTES } from './kb-files.js';
import type { KbIndex } from './kb-index.js';
import { ParseError, markdownSegments, parseDocument } from './parse-docs.js';
import { detectDocType } from './source-type.js';
import { createHash } from 'node:crypto';

// One source through the durable job (DESIGN 13): parse into chunks (stored in one transaction per
// document, then `parsed`), embed the chunks still without a vector of the KB's model (64 per
// request, at most 2 requests in flight, 429 waited out as asked), probe, ready. Every step reads its
// starting point from the index, so a restart after a crash or a pause continues where it stopped.

export const BATCH = 64;
export const IN_FLIGHT = 2;
const MAX_RATE_WAITS = 6;

export class IngestFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface IngestDeps {
  dir: string;
  kb: () => KbFile;
  index: KbIndex;
  target: (ref: string) => Promise<ProviderTarget>;
  fetchPage: (url: string, signal: AbortSignal) => Promise<{ title: string; markdown: string }>;
  /** The first answer's vector size, recorded in kb.json. */
  learnDimensions: (model: string, dims: number) => Promise<void>;
  progress: (done: number, total: number, state: 'parsing' | 'embedding') => void;
  signal: AbortSignal;
}

function chunkingOf(kb: KbFile) {
  return kb.chunking;
}

async function chunksOfBytes(bytes: Buffer, name: string, kb: KbFile, typeHint?: SourceSpec['doc_type']): Promise<ChunkDraft[]> {
  let type = typeHint;
  if (!type) {
    const d = detectDocType(bytes, name);
    if (!d.ok) throw new IngestFailure('unsupported_file', d.message);
    type = d.type;
  }
  try {
    return chunkSegments(await parseDocument(type, bytes, name, kb.chunking.tokens), chunkingOf(kb));
  } catch (err) {
    if (err instanceof ParseError) throw new IngestFailure('parse_failed', err.message);
    throw err;
  }
}

/** Parses a source into the index (a folder: only files added or changed since the last sync). */
export async function parseSource(spec: SourceSpec, d: IngestDeps): Promise<void> {
  const kb = d.kb();
  const { index } = d;
  if (spec.kind === 'folder') return syncFolder(spec, d);
  let chunks: ChunkDraft[];
  let size: number;
  if (spec.kind === 'url') {
    let page: { title: string; markdown: string };
    try {
      page = await d.fetchPage(spec.url ?? '', d.signal);
    } catch (err) {
      if (d.signal.aborted) throw err;
      throw new IngestFailure('fetch_failed', (err as Error).message);
    }
    chunks = chunkSegments(markdownSegments(page.markdown, false), chunkingOf(kb));
    size = Buffer.byteLength(page.markdown);
  } else {
    const bytes = await fs.readFile(path.join(d.dir, 'files', spec.sha256 ?? '')).catch(() => {
      throw new IngestFailure('file_missing', `The stored copy of ${spec.name} is missing; remove the source and add the file again.`);
    });
    chunks = await chunksOfBytes(bytes, spec.name, kb, spec.doc_type);
    size = bytes.length;
  }
  if (d.signal.aborted) throw d.signal.reason;
  index.tx(() => {
    index.db.prepare('DELETE FROM chunks WHERE source_id = ?').run(spec.id);
    index.insertChunks(spec.id, null, chunks);
    index.update(spec.id, { parsed: 1, chunks_total: chunks.length, size });
  });
}

async function syncFolder(spec: SourceSpec, d: IngestDeps): Promise<void> {
  const { index } = d;
  const kb = d.kb();
  let files;
  try {
    files = await walkFolder(spec.path ?? '', spec.include ?? [], spec.exclude ?? [], MAX_FILE_BYTES);
  } catch (err) {
    throw new IngestFailure('folder_unreadable', `The folder ${spec.path} cannot be read: ${(err as Error).message}`);
  }
  const known = new Map(index.documents(spec.id).map((doc) => [doc.path, doc]));
  const seen = new Set<string>();
  let size = 0;
  let done = 0;
  for (const f of files) {
    if (d.signal.aborted) throw d.signal.reason;
    seen.add(f.rel);
    const old = known.get(f.rel);
    if (old && old.size === f.size && old.mtime === f.mtime) {
      size += f.size;
      continue;
    }
    const bytes = await fs.readFile(f.abs).catch(() => null);
    if (!bytes) continue;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (old && old.sha256 === sha256) {
      index.putDocumentMeta(old.id, f.size, f.mtime);
      size += f.size;
      continue;
    }
    let chunks: ChunkDraft[];
    try {
      chunks = await chunksOfBytes(bytes, f.rel, kb);
    } catch (err) {
      if (err instanceof IngestFailure) continue; // a binary or unreadable file in a folder is left out, not fatal
      throw err;
    }
    for (const c of chunks) c.location = { file: f.rel, ...c.location };
    index.putDocument(spec.id, { path: f.rel, sha256, size: f.size, mtime: f.mtime }, chunks);
    size += f.size;
    if (++done % 20 === 0) d.progress(0, index.chunkCount(spec.id), 'parsing');
  }
  for (const p of known.keys()) if (!seen.has(p)) index.removeDocument(spec.id, p);
  index.update(spec.id, { parsed: 1, chunks_total: index.chunkCount(spec.id), size, files: index.documents(spec.id).length });
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/** One batch, 429s waited out (Retry-After, else a growing pause), other failures thrown. */
async function embedBatch(
  target: ProviderTarget,
  texts: string[],
  dims: () => number | null,
  signal: AbortSignal,
): Promise<Float32Array[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await embed(target, texts, dims(), signal);
    } catch (err) {
      if (!(err instanceof ProviderFailure) || err.code !== 'rate_limited' || attempt >= MAX_RATE_WAITS) throw err;
      await sleep(Math.min(60_000, err.retryAfterMs ?? 1000 * 2 ** attempt), signal);
    }
  }
}

/** Embeds every chunk of the source still without a vector of the KB's model. */
export async function embedSource(spec: SourceSpec, d: IngestDeps): Promise<void> {
  const kb = d.kb();
  if (!kb.embedding) return;
  const model = kb.embedding.model;
  const target = await d.target(model);
  const { index } = d;
  const total = index.chunkCount(spec.id);
  d.progress(index.embeddedCount(spec.id, model), total, 'embedding');
  for (;;) {
    if (d.signal.aborted) throw d.signal.reason;
    const todo = index.unembedded(spec.id, model, BATCH * IN_FLIGHT);
    if (todo.length === 0) return;
    const batches: (typeof todo)[] = [];
    for (let i = 0; i < todo.length; i += BATCH) batches.push(todo.slice(i, i + BATCH));
    const dims = () => d.kb().embedding?.dimensions ?? null;
    // Each batch is stored as soon as it answers: a crash loses at most the requests in flight.
    await Promise.all(
      batches.map(async (batch) => {
        const vectors = await embedBatch(
          target,
          batch.map((b) => b.text),
          dims,
          d.signal,
        );
        if (d.kb().embedding?.model !== model) return; // the model changed meanwhile: never mixed
        if (dims() === null) await d.learnDimensions(model, vectors[0].length);
        else if (vectors[0].length !== dims()) {
          throw new ProviderFailure(
            'wrong_dimension',
            `The provider answered a vector of ${vectors[0].length} dimensions; this knowledge base holds vectors of ${dims()}.`,
          );
        }
        index.putVectors(
          model,
          batch.map((b, i) => ({ hash: b.hash, vec: vectors[i] })),
        );
        d.progress(index.embeddedCount(spec.id, model), total, 'embedding');
      }),
    );
  }
}

/** Ready only when a search for words of the first chunk finds it (and its vector is there). */
export function probe(spec: SourceSpec, d: IngestDeps): void {
  const first = d.index.firstChunk(spec.id);
  if (!first)
    throw new IngestFailure('no_text', `No text was found in ${spec.name} (a scanned PDF without a text layer, or an empty file).`);
  const match = ftsAllOf(first.text);
  if (!match || !d.index.finds(match, first.id)) {
    throw new IngestFailure(
      'probe_failed',
      `A search for the first words of ${spec.name} did not find it; the index may be damaged. Retry rebuilds it.`,
    );
  }
  const kb = d.kb();
  if (kb.embedding) {
    const hash = (d.index.db.prepare('SELECT hash FROM chunks WHERE id = ?').get(first.id) as { hash: string }).hash;
    const vec = d.index.vectorOfHash(kb.embedding.model, hash);
    if (!vec || (kb.embedding.dimensions !== null && vec.length !== kb.embedding.dimensions)) {
      throw new IngestFailure('probe_failed', `The first passage of ${spec.name} has no vector of ${kb.embedding.model}.`);
    }
  }
}
