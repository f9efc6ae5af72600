// The knowledge bases of one chat turn (DESIGN 13 "Search and chat"): the built-in tools
// `knowledge_search` / `knowledge_read` for a model with tools, the top passages in a context block
// for one without, or the whole text when it fits in a quarter of the window. Every passage the
// model sees is numbered from the turn's SourceNumbers (shared with the web tools), and the reply's
// [n] markers become the citations the assistant message stores.
import type { SourceNumbers } from '../tools/source-numbers.js';
import type { ToolCallOutcome, ToolSource, ToolSpec } from '../tools/tool-source.js';
import type { ChunkLocation, KnowledgeBase, KnowledgeReader } from './knowledge-api.js';

export const KNOWLEDGE_SERVER = 'knowledge';
/** Passages a search returns to the model, and passages a model without tools gets. */
export const PASSAGES_TOP_K = 8;
/** Characters one knowledge_read returns before it says where to continue. */
export const READ_MAX_CHARS = 40_000;
const MAX_QUERY_CHARS = 2_000;

/** One numbered passage: what a citation of it stores. */
export interface KnowledgePassage {
  n: number;
  kb_id: string;
  source_id: string;
  /** Empty for a whole source sent as one passage until a citation resolves its first chunk. */
  chunk_id: string;
  name: string;
  location?: ChunkLocation;
}

export type KnowledgeMode = 'tools' | 'passages' | 'whole';

/** "guide.md · Setup › Keys", "report.pdf · p. 3", "main.ts · lines 10–24". */
export function describeLocation(name: string, loc: ChunkLocation | undefined): string {
  if (!loc) return name;
  const where = loc.page
    ? `p. ${loc.page}`
    : loc.heading?.length
      ? loc.heading.join(' › ')
      : loc.line_start
        ? `lines ${loc.line_start}–${loc.line_end ?? loc.line_start}`
        : '';
  return [name, loc.file, where].filter(Boolean).join(' · ');
}

function fail(content: string): ToolCallOutcome {
  return { ok: false, content, errorCode: 'tool_error' };
}

function optionalSeq(value: unknown, field: string): number | undefined | string {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return `${field} must be a chunk number (an integer ≥ 0).`;
  return value;
}

const CITE = 'Cite what you use inline as [n] with the number shown; do not cite passages you did not use.';

export interface KnowledgeTurnOptions {
  /** The model takes tools (else passages go in a context block). */
  offerTools: boolean;
  /** Tokens the model reads; whole text is sent when it fits in a quarter of it. */
  contextWindow: number;
  /** The user's text: what a model without tools gets passages for. */
  userText: string;
  numbers: SourceNumbers;
  /** `ask`: calls wait for the approvals endpoint like a tool server's. */
  needsApproval?: boolean;
  signal?: AbortSignal;
}

/** The knowledge side of one turn; a ToolSource when `mode` is `tools`. */
export class KnowledgeTurn implements ToolSource {
  private readonly passages = new Map<string, KnowledgePassage>();
  /** Source id → its KB, learnt from what the model was shown. */
  private readonly sourceKb = new Map<string, string>();
  /** The context block for the user message ('' in `tools` mode). */
  contextBlock = '';

  private constructor(
    private readonly reader: KnowledgeReader,
    readonly kbs: KnowledgeBase[],
    readonly mode: KnowledgeMode,
    private readonly numbers: SourceNumbers,
    private readonly needsApproval: boolean,
  ) {}

  /**
   * The turn's knowledge for `ids` (workspace and message KBs); null when none of them exists any
   * more (a deleted KB is skipped). Whole text first, then tools, then retrieved passages.
   */
  static async prepare(reader: KnowledgeReader, ids: string[], options: KnowledgeTurnOptions): Promise<KnowledgeTurn | null> {
    const kbs = await reader.describe([...new Set(ids)]);
    if (kbs.length === 0) return null;
    const inPlay = kbs.map((kb) => kb.id);
    // A quarter of the window at about 4 characters a token.
    const whole = await reader.wholeText(inPlay, Math.floor(options.contextWindow / 4) * 4);
    const approval = options.needsApproval === true;
    if (whole && whole.length > 0) {
      const turn = new KnowledgeTurn(reader, kbs, 'whole', options.numbers, approval);
      const parts = whole.map(
        (s) => `[${turn.number({ kb_id: s.kb_id, source_id: s.source_id, chunk_id: '', name: s.name })}] ${s.name}\n${s.text}`,
      );
      turn.contextBlock = turn.block(
        `The full text of the knowledge bases attached to this conversation (${turn.names()}), one numbered source each. ${CITE}`,
        parts,
      );
      return turn;
    }
    if (options.offerTools) return new KnowledgeTurn(reader, kbs, 'tools', options.numbers, approval);
    const turn = new KnowledgeTurn(reader, kbs, 'passages', options.numbers, approval);
    const query = options.userText.trim().slice(0, MAX_QUERY_CHARS);
    const hits = query ? await reader.search(inPlay, query, { top_k: PASSAGES_TOP_K, signal: options.signal }) : [];
    const parts = hits.map((h) => {
      const n = turn.number({ kb_id: h.kb_id, source_id: h.source_id, chunk_id: h.chunk_id, name: h.name, location: h.location });
      return `[${n}] ${describeLocation(h.name, h.location)}\n${h.text}`;
    });
    turn.contextBlock = turn.block(
      parts.length > 0
        ? `Passages retrieved for the user's message from the knowledge bases attached to this conversation (${turn.names()}). ${CITE}`
        : `The knowledge bases attached to this conversation (${turn.names()}) hold nothing relevant to the user's message.`,
      parts,
    );
    return turn;
  }

  private names(): string {
    return this.kbs.map((kb) => kb.name).join(', ');
  }

  private block(lead: string, parts: string[]): string {
    return ['<knowledge>', lead, ...parts, '</knowledge>'].join('\n\n');
  }

  /** The passage's number: the same chunk (or whole source) keeps the number it was first shown with. */
  private number(p: Omit<KnowledgePassage, 'n'>): number {
    this.sourceKb.set(p.source_id, p.kb_id);
    const key = `${p.kb_id}\n${p.source_id}\n${p.chunk_id}`;
    const known = this.passages.get(key);
    if (known) return known.n;
    const n = this.numbers.next();
    this.passages.set(key, { ...p, n });
    return n;
  }

  async list(): Promise<ToolSpec[]> {
    if (this.mode !== 'tools') return [];
    const choices = this.kbs.map((kb) => kb.id);
    return [
      {
        name: 'knowledge_search',
        server: KNOWLEDGE_SERVER,
        tool: 'knowledge_search',
        needsApproval: this.needsApproval,
        description: `Search the user's knowledge bases (by words and by meaning). Returns numbered passages with their source. ${CITE}`,
        inputSchema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'What to look for: words, names, numbers or a question.' },
            knowledge_base: {
              type: 'string',
              enum: choices,
              description: 'Search only this knowledge base (its id); default: all of them.',
            },
          },
          required: ['query'],
        },
      },
      {
        name: 'knowledge_read',
        server: KNOWLEDGE_SERVER,
        tool: 'knowledge_read',
        needsApproval: this.needsApproval,
        description: `Read a source of a knowledge base: chunks from..to (0-based, inclusive) or, without them, the whole source from the start. Returns numbered passages. ${CITE}`,
        inputSchema: {
          type: 'object',
          properties: {
            source_id: { type: 'string', description: 'A source_id that knowledge_search showed.' },
            from: { type: 'integer', minimum: 0, description: 'First chunk to read (0-based).' },
            to: { type: 'integer', minimum: 0, description: 'Last chunk to read (inclusive).' },
          },
          required: ['source_id'],
        },
      },
    ];
  }

  async systemPrompt(): Promise<string> {
    if (this.mode !== 'tools') return '';
    const lines = this.kbs.map((kb) => `- ${kb.name} (id ${kb.id})${kb.description.trim() ? `: ${kb.description.trim()}` : ''}`);
    return `Knowledge bases are attached to this conversation:\n${lines.join('\n')}\nUse knowledge_search to find passages in them and knowledge_read to read more of a source. ${CITE}`;
  }

  async remember(): Promise<void> {}

  async call(_ws: string, spec: ToolSpec, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolCallOutcome> {
    try {
      if (spec.tool === 'knowledge_search') return await this.search(args, signal);
      if (spec.tool === 'knowledge_read') return await this.read(args);
      return fail(`There is no knowledge tool named ${spec.tool}.`);
    } catch (err) {
      if (signal.aborted) throw err;
      return fail(`${spec.tool} failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  private async search(args: Record<string, unknown>, signal: AbortSignal): Promise<ToolCallOutcome> {
    const query = typeof args.query === 'string' ? args.query.trim().slice(0, MAX_QUERY_CHARS) : '';
    if (!query) return fail('query is required: the words or question to search for.');
    let kbs = this.kbs;
    if (args.knowledge_base !== undefined && args.knowledge_base !== null && args.knowledge_base !== '') {
      const wanted = String(args.knowledge_base).trim();
      const kb = this.kbs.find((k) => k.id === wanted) ?? this.kbs.find((k) => k.name.toLowerCase() === wanted.toLowerCase());
      if (!kb)
        return fail(
          `knowledge_base must be one of ${this.kbs.map((k) => `${k.id} (${k.name})`).join(', ')}; there is no ${wanted.slice(0, 80)}.`,
        );
      kbs = [kb];
    }
    const hits = await this.reader.search(
      kbs.map((k) => k.id),
      query,
      { top_k: PASSAGES_TOP_K, signal },
    );
    const where = kbs.map((k) => k.name).join(', ');
    if (hits.length === 0) return { ok: true, content: `Nothing relevant to "${query}" in ${where}.` };
    const parts = hits.map((h) => {
      const n = this.number({ kb_id: h.kb_id, source_id: h.source_id, chunk_id: h.chunk_id, name: h.name, location: h.location });
      return `[${n}] ${describeLocation(h.name, h.location)}\nsource_id: ${h.source_id}\n${h.text}`;
    });
    return { ok: true, content: `Passages for "${query}" in ${where}:\n\n${parts.join('\n\n')}` };
  }

  private async read(args: Record<string, unknown>): Promise<ToolCallOutcome> {
    const sourceId = typeof args.source_id === 'string' ? args.source_id.trim() : '';
    if (!sourceId) return fail('source_id is required: a source_id that knowledge_search showed.');
    const from = optionalSeq(args.from, 'from');
    const to = optionalSeq(args.to, 'to');
    if (typeof from === 'string') return fail(from);
    if (typeof to === 'string') return fail(to);
    if (from !== undefined && to !== undefined && from > to) return fail('from must not be after to.');
    const known = this.sourceKb.get(sourceId);
    const candidates = known ? [known] : this.kbs.map((k) => k.id);
    let span: Awaited<ReturnType<KnowledgeReader['read']>> | null = null;
    let lastError = '';
    for (const kbId of candidates) {
      try {
        span = await this.reader.read(kbId, sourceId, from === undefined && to === undefined ? undefined : { from, to });
        break;
      } catch (err) {
        lastError = (err as Error).message;
      }
    }
    if (!span)
      return fail(
        `There is no source ${sourceId.slice(0, 80)} in the knowledge bases of this conversation${known ? ` (${lastError})` : ''}.`,
      );
    if (span.chunks.length === 0)
      return { ok: true, content: `${span.name} has no chunks in that range (it holds ${span.chunks_total}, numbered from 0).` };
    const parts: string[] = [];
    let chars = 0;
    let last = -1;
    for (const c of span.chunks) {
      // At least one chunk, then stop before the limit: the model is told where to go on.
      if (parts.length > 0 && chars + c.text.length > READ_MAX_CHARS) break;
      const n = this.number({ kb_id: span.kb_id, source_id: span.source_id, chunk_id: c.chunk_id, name: span.name, location: c.location });
      parts.push(`[${n}] ${describeLocation(span.name, c.location)} (chunk ${c.seq})\n${c.text}`);
      chars += c.text.length;
      last = c.seq;
    }
    const first = span.chunks[0]!.seq;
    const more =
      last < span.chunks_total - 1
        ? `\n\n[showing chunks ${first}–${last} of ${span.chunks_total} (0–${span.chunks_total - 1}); call knowledge_read with from=${last + 1} for more]`
        : '';
    return { ok: true, content: `${span.name} (source_id ${span.source_id}):\n\n${parts.join('\n\n')}${more}` };
  }

  /**
   * The passages the reply cites by [n] (others stay uncited). A whole source cited resolves to its
   * first chunk, so the citation opens the source at its start.
   */
  async citations(text: string): Promise<KnowledgePassage[]> {
    const cited = new Set([...text.matchAll(/\[(\d{1,4})\]/g)].map((m) => Number(m[1])));
    const out: KnowledgePassage[] = [];
    for (const p of this.passages.values()) {
      if (!cited.has(p.n)) continue;
      if (p.chunk_id) {
        out.push(p);
        continue;
      }
      const first = await this.reader.read(p.kb_id, p.source_id, { from: 0, to: 0 }).catch(() => null);
      const chunk = first?.chunks[0];
      out.push(chunk ? { ...p, chunk_id: chunk.chunk_id, location: chunk.location } : p);
    }
    return out.sort((a, b) => a.n - b.n);
  }
}
