import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ConfigStore } from '../config/config-store.js';
import type { ModelKind } from '../config/config-api.js';
import { moveToTrash } from '../data/trash.js';
import type { DataPaths } from '../data/data-dir.js';
import { ApiError } from '../http/errors.js';
import type { ProviderTarget } from './embed-client.js';
import { MAX_FOLDER_FILES } from './folder-walk.js';
import { kbView, readKbFile, saveText, saveUpload, writeKbFile, type KbFile, type SourceSpec } from './kb-files.js';
import { KbIndex } from './kb-index.js';
import { KbRuntime } from './kb-runtime.js';
import { searchKb } from './kb-search.js';
import type {
  KnowledgeBase,
  KnowledgeBaseDetail,
  KnowledgeHit,
  KnowledgeProgress,
  KnowledgeReader,
  KnowledgeSearchResponse,
  KnowledgeSource,
  SearchMode,
  SourceSpan,
} from './knowledge-api.js';
import { joinChunks } from './whole-text.js';
import type { z } from 'zod';
import type { AddSourceSchema, CreateKbSchema, PatchKbSchema } from './knowledge-schemas.js';

// Knowledge bases (DESIGN 13): `knowledge/<kb-id>/` per KB, one runtime each (opened at start so
// unfinished jobs resume), the admin operations behind the routes, and the reader the chat loop uses.

const KB_ID = /^kb_[0-9a-f]{12}$/;
const SOURCE_ID = /^src_[0-9a-f]{12}$/;
const newId = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

export interface KnowledgeServiceOptions {
  paths: DataPaths;
  config: ConfigStore;
  fetchPage: (url: string, signal: AbortSignal) => Promise<{ title: string; markdown: string }>;
  progress: (p: KnowledgeProgress) => void;
  log: (line: string) => void;
}

export class KnowledgeService implements KnowledgeReader {
  private readonly runtimes = new Map<string, KbRuntime>();
  private started: Promise<void> | null = null;
  readonly dir: string;

  constructor(private readonly options: KnowledgeServiceOptions) {
    this.dir = path.join(options.paths.root, 'knowledge');
  }

  /** Opens every KB (rebuilding damaged indexes) and resumes unfinished jobs. */
  start(): Promise<void> {
    this.started ??= (async () => {
      // No knowledge/ yet: nothing to open, and nothing written (the folder comes with the first KB).
      const names = await fs.readdir(this.dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [] as string[];
        throw err;
      });
      for (const name of names) {
        if (!KB_ID.test(name)) continue;
        try {
          await this.open(name);
        } catch (err) {
          this.options.log(`knowledge: ${name} could not be opened: ${(err as Error).message}`);
        }
      }
    })();
    return this.started;
  }

  private async open(id: string): Promise<KbRuntime> {
    const dir = path.join(this.dir, id);
    const kb = await readKbFile(dir);
    if (!kb) throw new Error('kb.json is missing');
    const { index, rebuilt } = await KbIndex.open(path.join(dir, 'index.sqlite'));
    if (rebuilt) this.options.log(`knowledge: the index of ${id} was damaged; it is rebuilt from its sources`);
    const rt = new KbRuntime(dir, kb, index, {
      target: (ref) => this.target(ref, 'embedding'),
      fetchPage: this.options.fetchPage,
      progress: this.options.progress,
      log: this.options.log,
    });
    // kb.json lists the sources: any the index lacks (a rebuilt index) is ingested again.
    const known = new Set(index.sources().map((s) => s.id));
    for (const s of kb.sources) if (!known.has(s.id)) index.addSource(s.id, 'queued', 0);
    for (const s of kb.sources) {
      const state = index.source(s.id)?.state;
      if (s.kind === 'folder' && state === 'ready') rt.requeue(s.id, true); // catch up with changes made while stopped
    }
    this.runtimes.set(id, rt);
    rt.kick();
    return rt;
  }

  private async runtime(id: string): Promise<KbRuntime> {
    await this.start();
    const rt = KB_ID.test(id) ? this.runtimes.get(id) : undefined;
    if (!rt) throw new ApiError('not_found', `No knowledge base with id ${id.slice(0, 80)}.`);
    return rt;
  }

  /** The provider endpoint of a model entry of `kind` (validated: listed, enabled, that kind, a base URL). */
  async target(ref: string, kind: Exclude<ModelKind, 'chat'>, field = `${kind}.model`): Promise<ProviderTarget> {
    await this.options.config.refresh();
    const at = ref.indexOf(':');
    const provider = this.options.config.snapshot().providers.find((p) => p.id === ref.slice(0, at));
    const model = provider?.models.find((m) => m.id === ref.slice(at + 1));
    const fail = (why: string) => new ApiError('validation_failed', `${field} ${why}`, { field });
    if (!provider || !model) throw fail(`must name a configured model <providerId>:<modelId> (no ${ref.slice(0, 120)}).`);
    if (!provider.enabled) throw fail(`names ${ref}, whose provider is disabled.`);
    if (model.kind !== kind) throw fail(`must name a ${kind} model; ${ref} is marked as a ${model.kind} model.`);
    if (provider.type === 'native')
      throw fail(`names ${ref}, whose provider is native; embeddings and rerank need a compat or responsemode provider.`);
    const resolved = this.options.config.resolved(provider);
    if (!resolved.base_url) throw fail(`names ${ref}, whose provider has no base_url.`);
    return { baseUrl: resolved.base_url, apiKey: resolved.api_key, model: model.id };
  }

  // Knowledge bases ------------------------------------------------------------------------------

  async list(): Promise<KnowledgeBase[]> {
    await this.start();
    return [...this.runtimes.values()].map((rt) => kbView(rt.kb)).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async detail(id: string): Promise<KnowledgeBaseDetail> {
    const rt = await this.runtime(id);
    const sources = rt.kb.sources.map((s) => rt.view(s));
    const active = sources.filter((s) => s.state === 'embedding' || s.state === 'queued');
    const reembedding =
      rt.kb.embedding && active.length > 0
        ? { chunks_done: sources.reduce((n, s) => n + s.chunks_done, 0), chunks_total: sources.reduce((n, s) => n + s.chunks_total, 0) }
        : null;
    return { ...kbView(rt.kb), sources, reembedding };
  }

  async create(input: z.output<typeof CreateKbSchema>): Promise<KnowledgeBase> {
    await this.start();
    if (input.embedding) await this.target(input.embedding.model, 'embedding');
    if (input.rerank) await this.target(input.rerank.model, 'rerank');
    const id = newId('kb');
    const now = new Date().toISOString();
    const kb: KbFile = {
      id,
      name: input.name,
      description: input.description ?? '',
      embedding: input.embedding ? { model: input.embedding.model, dimensions: null } : null,
      rerank: input.rerank ? { model: input.rerank.model } : null,
      chunking: input.chunking ?? { tokens: 512, overlap: 64 },
      created_at: now,
      updated_at: now,
      sources: [],
    };
    const dir = path.join(this.dir, id);
    await fs.mkdir(path.join(dir, 'files'), { recursive: true, mode: 0o700 });
    await writeKbFile(dir, kb);
    await this.open(id);
    return kbView(kb);
  }

  async patch(id: string, input: z.output<typeof PatchKbSchema>): Promise<KnowledgeBaseDetail> {
    const rt = await this.runtime(id);
    if (input.embedding) await this.target(input.embedding.model, 'embedding');
    if (input.rerank) await this.target(input.rerank.model, 'rerank');
    const kb = rt.kb;
    if (input.name !== undefined) kb.name = input.name;
    if (input.description !== undefined) kb.description = input.description;
    if (input.rerank !== undefined) kb.rerank = input.rerank ? { model: input.rerank.model } : null;
    const newModel = input.embedding === undefined ? undefined : (input.embedding?.model ?? null);
    const changed = newModel !== undefined && newModel !== (kb.embedding?.model ?? null);
    if (changed) {
      // Re-embed: vectors of the old model go (never mixed); text and FTS stay, so words keep answering.
      kb.embedding = newModel ? { model: newModel, dimensions: null } : null;
      rt.index.dropVectorsExcept(newModel);
      rt.invalidateVectors();
    }
    await rt.save();
    if (changed) for (const s of kb.sources) if (rt.index.source(s.id)?.state !== 'paused') rt.requeue(s.id, false);
    return this.detail(id);
  }

  async remove(id: string): Promise<void> {
    const rt = await this.runtime(id);
    this.runtimes.delete(id);
    await rt.close();
    await moveToTrash(this.options.paths, rt.dir, `knowledge-${id}`);
  }

  // Sources --------------------------------------------------------------------------------------

  async sources(id: string): Promise<KnowledgeSource[]> {
    const rt = await this.runtime(id);
    return rt.kb.sources.map((s) => rt.view(s));
  }

  private async addSpec(rt: KbRuntime, spec: SourceSpec, size: number): Promise<KnowledgeSource> {
    rt.kb.sources.push(spec);
    await rt.save();
    rt.index.addSource(spec.id, 'queued', size);
    rt.kick();
    return rt.view(spec);
  }

  async addFile(id: string, name: string, body: AsyncIterable<Uint8Array>): Promise<KnowledgeSource> {
    const rt = await this.runtime(id);
    const saved = await saveUpload(rt.dir, name, body);
    const spec: SourceSpec = {
      id: newId('src'),
      kind: 'file',
      name,
      created_at: new Date().toISOString(),
      sha256: saved.sha256,
      doc_type: saved.type,
      mime: saved.mime,
    };
    return this.addSpec(rt, spec, saved.size);
  }

  async add(id: string, input: z.output<typeof AddSourceSchema>): Promise<KnowledgeSource> {
    const rt = await this.runtime(id);
    const base = { id: newId('src'), created_at: new Date().toISOString() };
    switch (input.kind) {
      case 'note': {
        const saved = await saveText(rt.dir, input.text);
        return this.addSpec(
          rt,
          { ...base, kind: 'note', name: input.title, sha256: saved.sha256, doc_type: 'markdown', mime: 'text/markdown' },
          saved.size,
        );
      }
      case 'url': {
        let url: URL;
        try {
          url = new URL(input.url);
        } catch {
          throw new ApiError('validation_failed', 'url must be an absolute http:// or https:// URL.', { field: 'url' });
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
          throw new ApiError('validation_failed', 'url must be an http:// or https:// URL.', { field: 'url' });
        return this.addSpec(rt, { ...base, kind: 'url', name: url.href, url: url.href }, 0);
      }
      case 'folder': {
        if (!path.isAbsolute(input.path))
          throw new ApiError('validation_failed', 'path must be an absolute path to a folder on the backend machine.', { field: 'path' });
        const st = await fs.stat(input.path).catch(() => null);
        if (!st?.isDirectory())
          throw new ApiError('validation_failed', `path must name an existing folder (${input.path.slice(0, 200)} is not one).`, {
            field: 'path',
          });
        const real = await fs.realpath(input.path);
        if (
          real === this.options.paths.root ||
          real.startsWith(this.options.paths.root + path.sep) ||
          this.options.paths.root.startsWith(real + path.sep)
        ) {
          throw new ApiError('validation_failed', 'path must not be or contain the backend data directory.', { field: 'path' });
        }
        return this.addSpec(
          rt,
          { ...base, kind: 'folder', name: real, path: real, include: input.include ?? [], exclude: input.exclude ?? [] },
          0,
        );
      }
    }
  }

  private async source(id: string, sid: string): Promise<{ rt: KbRuntime; spec: SourceSpec }> {
    const rt = await this.runtime(id);
    const spec = SOURCE_ID.test(sid) ? rt.spec(sid) : undefined;
    if (!spec) throw new ApiError('not_found', `No source with id ${sid.slice(0, 80)} in this knowledge base.`);
    return { rt, spec };
  }

  async removeSource(id: string, sid: string): Promise<void> {
    const { rt, spec } = await this.source(id, sid);
    rt.stop(sid);
    rt.kb.sources = rt.kb.sources.filter((s) => s.id !== sid);
    await rt.save();
    rt.index.removeSource(sid);
    rt.invalidateVectors();
    // The stored bytes go when no other source holds the same file.
    if (spec.sha256 && !rt.kb.sources.some((s) => s.sha256 === spec.sha256))
      await fs.rm(path.join(rt.dir, 'files', spec.sha256), { force: true });
  }

  async control(id: string, sid: string, action: 'retry' | 'pause' | 'resume'): Promise<KnowledgeSource> {
    const { rt, spec } = await this.source(id, sid);
    const state = rt.index.source(sid)?.state;
    if (action === 'pause') {
      if (state === 'ready' || state === 'failed')
        throw new ApiError('conflict', `The source is ${state}; only a queued or running source can be paused.`);
      if (state !== 'paused') rt.pause(sid);
    } else if (action === 'resume') {
      if (state !== 'paused') throw new ApiError('conflict', `The source is ${state}, not paused.`);
      rt.requeue(sid, false);
    } else rt.requeue(sid, true);
    return rt.view(spec);
  }

  /** The stored bytes of a file or note source (for the citation viewer). */
  async file(id: string, sid: string): Promise<{ file: string; mime: string; name: string }> {
    const { rt, spec } = await this.source(id, sid);
    if (!spec.sha256)
      throw new ApiError(
        'not_found',
        `The source ${spec.name.slice(0, 200)} is a ${spec.kind}; only file and note sources keep their bytes.`,
      );
    return { file: path.join(rt.dir, 'files', spec.sha256), mime: spec.mime ?? 'application/octet-stream', name: spec.name };
  }

  // Search and reading ---------------------------------------------------------------------------

  async searchOne(
    id: string,
    query: string,
    topK = 8,
    mode: SearchMode = 'hybrid',
    signal?: AbortSignal,
  ): Promise<KnowledgeSearchResponse> {
    const rt = await this.runtime(id);
    const { ranked, mode: used } = await searchKb(
      {
        kb: rt.kb,
        index: rt.index,
        vectors: () => rt.vectors(),
        target: (ref) => this.target(ref, ref === rt.kb.embedding?.model ? 'embedding' : 'rerank'),
        signal,
        log: this.options.log,
      },
      query,
      topK,
      mode,
    );
    const rows = rt.index.chunks(ranked.map((r) => r.id));
    const names = new Map(rt.kb.sources.map((s) => [s.id, s.name]));
    const results: KnowledgeHit[] = [];
    for (const r of ranked) {
      const c = rows.get(r.id);
      if (!c) continue;
      const base = names.get(c.source_id) ?? c.source_id;
      results.push({
        kb_id: id,
        source_id: c.source_id,
        name: c.location.file ? `${base}/${c.location.file}` : base,
        chunk_id: c.cid,
        text: c.text,
        location: c.location,
        score: r.score,
      });
    }
    return { results, mode: used };
  }

  async describe(ids: string[]): Promise<KnowledgeBase[]> {
    await this.start();
    return ids.flatMap((id) => {
      const rt = this.runtimes.get(id);
      return rt ? [kbView(rt.kb)] : [];
    });
  }

  async search(
    ids: string[],
    query: string,
    options: { top_k?: number; mode?: SearchMode; signal?: AbortSignal } = {},
  ): Promise<KnowledgeHit[]> {
    const topK = options.top_k ?? 8;
    const all: KnowledgeHit[] = [];
    for (const id of (await this.describe(ids)).map((kb) => kb.id))
      all.push(...(await this.searchOne(id, query, topK, options.mode ?? 'hybrid', options.signal)).results);
    return all.sort((a, b) => b.score - a.score).slice(0, topK);
  }

  async read(kbId: string, sourceId: string, span: { from?: number; to?: number } = {}): Promise<SourceSpan> {
    const { rt, spec } = await this.source(kbId, sourceId);
    const total = rt.index.chunkCount(sourceId);
    const from = Math.max(0, span.from ?? 0);
    const to = span.to ?? (span.from === undefined ? Number.MAX_SAFE_INTEGER : from + 4);
    if (to < from) throw new ApiError('validation_failed', 'to must be at least from.', { field: 'to' });
    const rows = rt.index.span(sourceId, from, Math.min(to, from + 199));
    return {
      kb_id: kbId,
      source_id: sourceId,
      name: spec.name,
      chunks: rows.map((r) => ({ chunk_id: r.cid, seq: r.seq, text: r.text, location: r.location })),
      chunks_total: total,
    };
  }

  /**
   * A cited chunk with the chunks either side (what the citation viewer opens). `chunk_id` is stable
   * across rebuilds; a numeric id from before stable ids opens when the index was migrated, and a
   * chunk whose text changed or went is a clear 404, never another passage.
   */
  async passage(kbId: string, sourceId: string, chunkId: string): Promise<SourceSpan> {
    const { rt, spec } = await this.source(kbId, sourceId);
    const chunk = rt.index.chunkByCid(sourceId, chunkId);
    if (!chunk)
      throw new ApiError(
        'not_found',
        `The cited passage ${chunkId.slice(0, 80)} no longer exists in ${spec.name.slice(0, 200)}: its text changed or was removed since it was cited.`,
      );
    const rows = rt.index.span(sourceId, Math.max(0, chunk.seq - 1), chunk.seq + 1);
    return {
      kb_id: kbId,
      source_id: sourceId,
      name: spec.name,
      chunk_id: chunk.cid,
      chunks: rows.map((r) => ({ chunk_id: r.cid, seq: r.seq, text: r.text, location: r.location })),
      chunks_total: rt.index.chunkCount(sourceId),
    };
  }

  async wholeText(ids: string[], maxChars: number): Promise<{ kb_id: string; source_id: string; name: string; text: string }[] | null> {
    const out: { kb_id: string; source_id: string; name: string; text: string }[] = [];
    let used = 0;
    for (const kb of await this.describe(ids)) {
      const rt = this.runtimes.get(kb.id) as KbRuntime;
      for (const spec of rt.kb.sources) {
        if (rt.index.source(spec.id)?.state !== 'ready') continue;
        const text = joinChunks(rt.index.span(spec.id, 0, Number.MAX_SAFE_INTEGER), maxChars - used);
        if (text === null) return null;
        used += text.length;
        out.push({ kb_id: kb.id, source_id: spec.id, name: spec.name, text });
      }
    }
    return out;
  }

  /** Waits for every job to settle (tests and shutdown). */
  async close(): Promise<void> {
    for (const rt of this.runtimes.values()) await rt.close();
    this.runtimes.clear();
  }

  static readonly limits = { maxFolderFiles: MAX_FOLDER_FILES };
}
