import type { FSWatcher } from 'node:fs';
import path from 'node:path';
import type { ProviderTarget } from './embed-client.js';
import { ProviderFailure } from './embed-client.js';
import { watchFolder } from './folder-walk.js';
import { IngestFailure, embedSource, parseSource, probe, type IngestDeps } from './kb-ingest.js';
import { writeKbFile, type KbFile, type SourceSpec } from './kb-files.js';
import type { KbIndex } from './kb-index.js';
import type { KnowledgeProgress, KnowledgeSource, SourceState } from './knowledge-api.js';
import { VectorIndex } from './vector-index.js';

// One open knowledge base: its kb.json, its index, the in-memory vectors (built on the first vector
// search, dropped on any change), folder watchers, and the job loop that takes sources one at a time
// in the order they were added. Job state lives in the index, so a restart resumes it.

export interface RuntimeDeps {
  target: (ref: string) => Promise<ProviderTarget>;
  fetchPage: (url: string, signal: AbortSignal) => Promise<{ title: string; markdown: string }>;
  progress: (p: KnowledgeProgress) => void;
  log: (line: string) => void;
}

const ACTIVE: SourceState[] = ['queued', 'parsing', 'embedding'];

export class KbRuntime {
  private running: Promise<void> | null = null;
  private current: { id: string; controller: AbortController } | null = null;
  private vectorCache: VectorIndex | null = null;
  private readonly watchers = new Map<string, FSWatcher>();
  private closed = false;
  private lastSent = new Map<string, number>();
  /** The running job's last progress: a view need not count the source's vectors again. */
  private live: { id: string; state: SourceState; done: number } | null = null;

  constructor(
    readonly dir: string,
    public kb: KbFile,
    readonly index: KbIndex,
    private readonly deps: RuntimeDeps,
  ) {}

  async save(): Promise<void> {
    this.kb.updated_at = new Date().toISOString();
    await writeKbFile(this.dir, this.kb);
  }

  spec(id: string): SourceSpec | undefined {
    return this.kb.sources.find((s) => s.id === id);
  }

  view(spec: SourceSpec): KnowledgeSource {
    const row = this.index.source(spec.id);
    const state = row?.state ?? 'queued';
    const total = row?.chunks_total ?? 0;
    const model = this.kb.embedding?.model;
    const live = this.live?.id === spec.id && this.live.state === state ? this.live.done : null;
    const done = state === 'ready' ? total : state === 'embedding' && model ? (live ?? this.index.embeddedCount(spec.id, model)) : 0;
    const out: KnowledgeSource = {
      id: spec.id,
      kind: spec.kind,
      name: spec.name,
      state,
      chunks_done: done,
      chunks_total: total,
      size: row?.size ?? 0,
      updated_at: row?.updated_at ?? spec.created_at,
    };
    if (row?.error) out.error = row.error;
    if (spec.mime) out.mime = spec.mime;
    if (spec.kind === 'folder')
      Object.assign(out, { path: spec.path, include: spec.include ?? [], exclude: spec.exclude ?? [], files: row?.files ?? 0 });
    if (spec.url) out.url = spec.url;
    return out;
  }

  /** The vectors of the current model in memory (built lazily). */
  vectors(): VectorIndex | null {
    const e = this.kb.embedding;
    if (!e || !e.dimensions) return null;
    this.vectorCache ??= VectorIndex.build(e.dimensions, this.index.allVectors(e.model), this.index.vectorCount(e.model));
    return this.vectorCache;
  }

  invalidateVectors(): void {
    this.vectorCache = null;
  }

  private emit(
    id: string,
    state: SourceState,
    done: number,
    total: number,
    error?: { code: string; message: string },
    force = false,
  ): void {
    const now = Date.now();
    if (!force && now - (this.lastSent.get(id) ?? 0) < 250) return;
    this.lastSent.set(id, now);
    this.deps.progress({
      type: 'knowledge.progress',
      kb_id: this.kb.id,
      source_id: id,
      state,
      chunks_done: done,
      chunks_total: total,
      ...(error ? { error } : {}),
    });
  }

  setState(id: string, state: SourceState, error: { code: string; message: string } | null = null): void {
    this.index.update(id, { state, error });
    const row = this.index.source(id);
    const total = row?.chunks_total ?? 0;
    const spec = this.spec(id);
    this.emit(id, state, spec ? this.view(spec).chunks_done : 0, total, error ?? undefined, true);
  }

  /** Starts the job loop unless it runs. */
  kick(): void {
    if (this.closed || this.running) return;
    this.running = this.loop().finally(() => {
      this.running = null;
      if (!this.closed && this.nextSource()) this.kick();
    });
  }

  private nextSource(): SourceSpec | undefined {
    for (const row of this.index.sources()) {
      if (!ACTIVE.includes(row.state)) continue;
      const spec = this.spec(row.id);
      if (spec) return spec;
    }
    return undefined;
  }

  private async loop(): Promise<void> {
    for (let spec = this.nextSource(); spec && !this.closed; spec = this.nextSource()) {
      const controller = new AbortController();
      this.current = { id: spec.id, controller };
      try {
        await this.ingest(spec, controller.signal);
      } catch (err) {
        if (controller.signal.aborted) continue; // paused, removed or closing: its state is already set
        const error =
          err instanceof IngestFailure || err instanceof ProviderFailure
            ? { code: err.code, message: err.message }
            : { code: 'ingest_failed', message: (err as Error).message };
        if (!(err instanceof IngestFailure || err instanceof ProviderFailure))
          this.deps.log(`knowledge: ${this.kb.id}/${spec.id}: ${(err as Error).stack ?? String(err)}`);
        if (this.index.source(spec.id)) this.setState(spec.id, 'failed', error);
      } finally {
        this.current = null;
        this.live = null;
      }
    }
  }

  private async ingest(spec: SourceSpec, signal: AbortSignal): Promise<void> {
    const deps: IngestDeps = {
      dir: this.dir,
      kb: () => this.kb,
      index: this.index,
      target: this.deps.target,
      fetchPage: this.deps.fetchPage,
      learnDimensions: async (model, dims) => {
        if (this.kb.embedding?.model !== model || this.kb.embedding.dimensions !== null) return;
        this.kb.embedding.dimensions = dims;
        await this.save();
      },
      progress: (done, total, state) => {
        if (signal.aborted) return;
        if (this.index.source(spec.id)?.state !== state) this.index.update(spec.id, { state });
        this.live = { id: spec.id, state, done };
        this.emit(spec.id, state, done, total);
      },
      signal,
    };
    const row = this.index.source(spec.id);
    if (!row) return;
    if (!row.parsed) {
      this.setState(spec.id, 'parsing');
      await parseSource(spec, deps);
      this.invalidateVectors();
    }
    if (signal.aborted) return;
    if (this.index.chunkCount(spec.id) === 0) throw new IngestFailure('no_text', `No text was found in ${spec.name}.`);
    if (this.kb.embedding) {
      this.setState(spec.id, 'embedding');
      await embedSource(spec, deps);
      this.invalidateVectors();
    }
    if (signal.aborted) return;
    probe(spec, deps);
    this.setState(spec.id, 'ready');
    if (spec.kind === 'folder') this.watch(spec);
  }

  /** Pauses a source: its job stops at once, what it stored stays. */
  pause(id: string): void {
    this.setState(id, 'paused');
    if (this.current?.id === id) this.current.controller.abort(new Error('paused'));
  }

  /** Ends a source's job (before it is removed). */
  stop(id: string): void {
    if (this.current?.id === id) this.current.controller.abort(new Error('removed'));
    this.watchers.get(id)?.close();
    this.watchers.delete(id);
  }

  /** Queues a source again; `reparse` reads its input afresh (a retry, a folder change). */
  requeue(id: string, reparse: boolean): void {
    if (reparse) this.index.update(id, { parsed: 0 });
    this.setState(id, 'queued');
    if (this.current?.id === id) this.current.controller.abort(new Error('requeued'));
    this.kick();
  }

  watch(spec: SourceSpec): void {
    if (this.closed || this.watchers.has(spec.id) || !spec.path) return;
    const w = watchFolder(path.resolve(spec.path), () => {
      const state = this.index.source(spec.id)?.state;
      if (state === 'ready' || state === 'failed') this.requeue(spec.id, true);
    });
    if (w) this.watchers.set(spec.id, w);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.current?.controller.abort(new Error('closing'));
    await this.running?.catch(() => undefined);
    this.index.close();
  }

  busy(): Promise<void> | null {
    return this.running;
  }
}
