// The contract of knowledge bases (DESIGN 13) as types: the HTTP shapes, what the chat loop asks of
// the knowledge service, and the citation a reply stores. The renderer imports these type-only.

/** `knowledge/<kb-id>/kb.json` and the HTTP view of a knowledge base. */
export interface KnowledgeBase {
  id: string;
  name: string;
  description: string;
  /** `model` is `<providerId>:<modelId>` of a `kind: "embedding"` model; `dimensions` is learnt from its first answer. Null: lexical only. */
  embedding: { model: string; dimensions: number | null } | null;
  /** A `kind: "rerank"` model applied after fusion; null: none. */
  rerank: { model: string } | null;
  chunking: { tokens: number; overlap: number };
  created_at: string;
  updated_at: string;
}

/** GET /api/knowledge/:kb */
export interface KnowledgeBaseDetail extends KnowledgeBase {
  sources: KnowledgeSource[];
  /** Set while the KB re-embeds after a model change: lexical search answers meanwhile. */
  reembedding?: { chunks_done: number; chunks_total: number } | null;
}

export type SourceKind = 'file' | 'folder' | 'url' | 'note';
export type SourceState = 'queued' | 'parsing' | 'embedding' | 'ready' | 'failed' | 'paused';

/** One source of a knowledge base (DESIGN 13 "Sources and ingestion"). */
export interface KnowledgeSource {
  id: string;
  kind: SourceKind;
  /** The file name, the folder path, the URL or the note's title. */
  name: string;
  state: SourceState;
  chunks_done: number;
  chunks_total: number;
  error?: { code: string; message: string };
  /** Bytes of text-bearing input (for a folder: the sum of its files). */
  size: number;
  updated_at: string;
  /** file: the type decided from the bytes. */
  mime?: string;
  /** folder: the path and patterns; `files` counts the files indexed. */
  path?: string;
  include?: string[];
  exclude?: string[];
  files?: number;
  /** url */
  url?: string;
}

/** Where a chunk sits in its source: what a citation opens. */
export interface ChunkLocation {
  /** PDF: 1-based page. */
  page?: number;
  /** Markdown/HTML/DOCX: the heading path above the chunk, outermost first. */
  heading?: string[];
  /** Text and code: 1-based first and last line. */
  line_start?: number;
  line_end?: number;
  /** Folder sources: the file's path relative to the folder. */
  file?: string;
}

export type SearchMode = 'hybrid' | 'lexical' | 'vector';

/** POST /api/knowledge/:kb/search */
export interface KnowledgeSearchRequest {
  query: string;
  top_k?: number;
  mode?: SearchMode;
}

export interface KnowledgeHit {
  kb_id: string;
  source_id: string;
  /** The source's name (file name, folder path + file, URL, note title). */
  name: string;
  /** Stable across index rebuilds, re-embeds and re-syncs while the chunk's text is unchanged (`ck_…`). */
  chunk_id: string;
  text: string;
  location: ChunkLocation;
  score: number;
}

export interface KnowledgeSearchResponse {
  results: KnowledgeHit[];
  /** The mode actually used: a hybrid search of a KB whose vectors are not ready answers lexically. */
  mode: SearchMode;
}

/** WebSocket frame `knowledge.progress`. */
export interface KnowledgeProgress {
  type: 'knowledge.progress';
  kb_id: string;
  source_id: string;
  state: SourceState;
  chunks_done: number;
  chunks_total: number;
  error?: { code: string; message: string };
}

/** A span of a source's chunks, as `knowledge_read` and the citation viewer read it. */
export interface SourceSpan {
  kb_id: string;
  source_id: string;
  name: string;
  chunks: { chunk_id: string; seq: number; text: string; location: ChunkLocation }[];
  /** Read by `?chunk_id=`: the cited chunk's id (a numeric id from before stable ids resolves to its stable one). */
  chunk_id?: string;
  /** Chunks the source holds in all, so a reader knows whether more follow. */
  chunks_total: number;
}

/**
 * What the chat loop asks of the knowledge service (backend/knowledge implements it; the turn
 * runner and the built-in tools use only this).
 */
export interface KnowledgeReader {
  /** The KBs that exist among `ids` (a deleted KB is skipped, not an error). */
  describe(ids: string[]): Promise<KnowledgeBase[]>;
  search(ids: string[], query: string, options?: { top_k?: number; mode?: SearchMode; signal?: AbortSignal }): Promise<KnowledgeHit[]>;
  /** Chunks `from`..`to` (0-based seq, inclusive) of a source; the whole source when both are absent. */
  read(kbId: string, sourceId: string, span?: { from?: number; to?: number }): Promise<SourceSpan>;
  /** The ready text of all sources of `ids` in order, or null when it exceeds `maxChars`. */
  wholeText(ids: string[], maxChars: number): Promise<{ kb_id: string; source_id: string; name: string; text: string }[] | null>;
}
