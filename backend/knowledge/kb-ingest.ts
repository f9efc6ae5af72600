import path from 'node:path';
import type { ChunkDraft } from './chunker.js';
import { embed, ProviderFailure, type ProviderTarget } from './embed-client.js';
import { walkFolder } from './folder-walk.js';
import { ftsAllOf } from './fts-query.js';
import { IngestFailure } from './ingest-failure.js';
import type { KbFile, SourceSpec } from './kb-files.js';
import { MAX_FILE_BYTES } from './kb-files.js';
import type { KbIndex } from './kb-index.js';
import { parseInWorker } from './parse-pool.js';

// One source through the durable job (DESIGN 13): parse into chunks (in a worker thread; stored in
// slices, then `parsed`), embed the chunks still without a vector of the KB's model (64 per
// request, at most 2 requests in flight, 429 waited out as asked), probe, ready. Every step reads its
// starting point from the index, so a restart after a crash or a pause continues where it stopped.

export const BATCH = 64;
export const IN_FLIGHT = 2;
const MAX_RATE_WAITS = 6;

export { IngestFailure };

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

/**
 * Parses a source into the index (a folder: only files added or changed since the last sync).
 * Chunks arrive in slices, each stored in its own short transaction so that the backend answers
 * between them; `parsed` is set only after the last, so a crash or a pause mid-way parses again.
 */
export async function parseSource(spec: SourceSpec, d: IngestDeps): Promise<void> {
  const kb = d.kb();
  const { index } = d;
  if (spec.kind === 'folder') return syncFolder(spec, d);
  let markdown: string | undefined;
  if (spec.kind === 'url') {
    try {
      markdown = (await d.fetchPage(spec.url ?? '', d.signal)).markdown;
    } catch (err) {
      if (d.signal.aborted) throw err;
      throw new IngestFailure('fetch_failed', (err as Error).message);
    }
  }
  let cleared = false;
  const clear = () => {
    if (cleared) return;
    cleared = true;
    index.db.prepare('DELETE FROM chunks WHERE source_id = ?').run(spec.id);
  };
  index.update(spec.id, { parsed: 0, chunks_total: 0 });
  const job =
    markdown !== undefined ? { markdown, name: spec.name } : { file: path.join(d.dir, 'files', spec.sha256 ?? ''), name: spec.name };
  let stored = 0;
  const done = await parseInWorker({ ...job, docType: spec.doc_type, chunking: kb.chunking }, d.signal, (chunks) => {
    stored += chunks.length;
    index.tx(() => {
      clear();
      index.insertChunks(spec.id, null, chunks);
      index.update(spec.id, { chunks_total: stored });
    });
    d.progress(0, stored, 'parsing');
  }).catch((err: unknown) => {
    if (err instanceof IngestFailure && err.code === 'file_missing')
      throw new IngestFailure('file_missing', `The stored copy of ${spec.name} is missing; remove the source and add the file again.`);
    throw err;
  });
  if (d.signal.aborted) throw d.signal.reason;
  index.tx(() => {
    clear();
    index.update(spec.id, { parsed: 1, chunks_total: done.total, size: done.size });
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
  const finishDoc = index.db.prepare('UPDATE documents SET sha256 = ?, size = ?, mtime = ? WHERE id = ?');
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
    // A document's first slice replaces its old chunks under a placeholder hash and size; the real
    // ones are written after its last slice, so a document cut short is parsed again next time.
    let docId: number | null = null;
    const onChunks = (chunks: ChunkDraft[]) => {
      for (const c of chunks) c.location = { file: f.rel, ...c.location };
      if (docId === null) docId = index.putDocument(spec.id, { path: f.rel, sha256: '', size: -1, mtime: -1 }, chunks);
      else {
        const id = docId;
        index.tx(() => index.insertChunks(spec.id, id, chunks));
      }
    };
    let result;
    try {
      result = await parseInWorker({ file: f.abs, name: f.rel, chunking: kb.chunking, knownSha256: old?.sha256 }, d.signal, onChunks);
    } catch (err) {
      // A binary, damaged or vanished file in a folder is left out, not fatal.
      if (err instanceof IngestFailure && !d.signal.aborted) continue;
      throw err;
    }
    if (result.unchanged && old) index.putDocumentMeta(old.id, f.size, f.mtime);
    else if (docId === null) index.putDocument(spec.id, { path: f.rel, sha256: result.sha256, size: f.size, mtime: f.mtime }, []);
    else finishDoc.run(result.sha256, f.size, f.mtime, docId);
    size += f.size;
    if (!result.unchanged && ++done % 20 === 0) d.progress(0, index.chunkCount(spec.id), 'parsing');
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

/**
 * Embeds every chunk of the source still without a vector of the KB's model, reading the chunks once
 * in order (a cursor) and asking once for each distinct text.
 */
export async function embedSource(spec: SourceSpec, d: IngestDeps): Promise<void> {
  const kb = d.kb();
  if (!kb.embedding) return;
  const model = kb.embedding.model;
  const target = await d.target(model);
  const { index } = d;
  const total = index.chunkCount(spec.id);
  let done = index.embeddedCount(spec.id, model);
  d.progress(done, total, 'embedding');
  const dims = () => d.kb().embedding?.dimensions ?? null;
  for (let cursor = -1; ;) {
    if (d.signal.aborted) throw d.signal.reason;
    const rows = index.unembedded(spec.id, model, cursor, BATCH * IN_FLIGHT);
    if (rows.length === 0) return;
    cursor = rows[rows.length - 1].seq;
    const texts = new Map<string, { hash: string; text: string; chunks: number }>();
    for (const r of rows) {
      const t = texts.get(r.hash);
      if (t) t.chunks++;
      else texts.set(r.hash, { hash: r.hash, text: r.text, chunks: 1 });
    }
    const todo = [...texts.values()];
    const batches: (typeof todo)[] = [];
    for (let i = 0; i < todo.length; i += BATCH) batches.push(todo.slice(i, i + BATCH));
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
        for (const b of batch) done += b.chunks;
        d.progress(done, total, 'embedding');
      }),
    );
  }
}

/** Ready only when a search for words of the first chunk finds it (and its vector is there). */
export function probe(spec: SourceSpec, d: IngestDeps): void {
  const head = d.index.firstChunk(spec.id);
  if (!head)
    throw new IngestFailure('no_text', `No text was found in ${spec.name} (a scanned PDF without a text layer, or an empty file).`);
  // The first chunk that has words: one of only punctuation (a run of brackets) has nothing to search for.
  let first = head;
  for (let from = head.seq + 1; !ftsAllOf(first.text); from += 200) {
    const page = d.index.span(spec.id, from, from + 199);
    if (page.length === 0) break;
    first = page.find((c) => ftsAllOf(c.text)) ?? page[page.length - 1];
  }
  const match = ftsAllOf(first.text);
  if (!match) throw new IngestFailure('no_text', `No words were found in ${spec.name}, only punctuation and symbols.`);
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
