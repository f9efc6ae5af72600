// The built-in `web_search` and `web_fetch` tools (DESIGN 14) for models without a native search
// tool. One WebService per backend holds the cache; each turn gets its own source, whose numbering
// of sources ([1], [2]…) the reply cites and the stored citations follow.
import { SourceNumbers } from '../tools/source-numbers.js';
import type { ToolCallOutcome, ToolSource, ToolSpec } from '../tools/tool-source.js';
import { cutText, readPage, type ReadPage } from './page-reader.js';
import { DEFAULT_LIMITS, safeFetch, WebError, type Resolver } from './safe-fetch.js';
import { searchWithFailover, SearchFailure, type SearchResult } from './search-providers.js';
import { TtlCache } from './web-cache.js';
import { resolveProvider } from './web-config.js';
import type { WebConfig } from './web-api.js';

export const WEB_SERVER = 'web';
export const DEFAULT_MAX_CHARS = 50_000;
const MAX_CHARS_LIMIT = 200_000;

export interface WebSource {
  n: number;
  url: string;
  title: string;
}

export interface WebServiceOptions {
  config: () => Promise<WebConfig>;
  env: NodeJS.ProcessEnv;
  /** Tests: a resolver that plays DNS answers. */
  resolve?: Resolver;
  limits?: Partial<typeof DEFAULT_LIMITS>;
}

export class WebService {
  private readonly searches = new TtlCache<{ provider: string; results: SearchResult[] }>();
  private readonly pages = new TtlCache<ReadPage>();

  constructor(private readonly options: WebServiceOptions) {}

  async search(query: string, count: number, signal?: AbortSignal): Promise<{ provider: string; results: SearchResult[] }> {
    const key = `${count}\n${query}`;
    const hit = this.searches.get(key);
    if (hit) return hit;
    const config = await this.options.config();
    const providers = config.web_search.providers.map((p) => resolveProvider(p, this.options.env));
    const found = await searchWithFailover(providers, query, count, signal);
    this.searches.set(key, found);
    return found;
  }

  async fetch(url: string, signal?: AbortSignal): Promise<ReadPage> {
    const hit = this.pages.get(url);
    if (hit) return hit;
    const config = await this.options.config();
    const page = await safeFetch(
      url,
      { ...DEFAULT_LIMITS, ...this.options.limits, allowHosts: config.web_fetch.allow_hosts, resolve: this.options.resolve },
      signal,
    );
    const read = await readPage(page);
    this.pages.set(url, read);
    if (read.url !== url) this.pages.set(read.url, read);
    return read;
  }

  /**
   * A tool source for one turn (web tools follow `web_search.approval`); `sources` fills as pages
   * are found and read, numbered from `numbers` (shared with the turn's knowledge passages).
   */
  async turnTools(numbers = new SourceNumbers()): Promise<WebTurnTools> {
    const config = await this.options.config();
    return new WebTurnTools(this, config.web_search.approval === 'ask', numbers);
  }
}

const specs = (needsApproval: boolean): ToolSpec[] => [
  {
    name: 'web_search',
    server: WEB_SERVER,
    tool: 'web_search',
    needsApproval,
    description:
      'Search the web. Returns numbered results (title, URL, snippet, date when known). Cite what you use as [n] with the number shown.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to search for.' },
        max_results: { type: 'integer', minimum: 1, maximum: 10, description: 'How many results (default 5, at most 10).' },
      },
      required: ['query'],
    },
  },
  {
    name: 'web_fetch',
    server: WEB_SERVER,
    tool: 'web_fetch',
    needsApproval,
    description: 'Read a web page (HTML, PDF or text) as Markdown with its title and final URL. Cite it as [n] with the number shown.',
    inputSchema: {
      type: 'object',
      properties: {
        url: { type: 'string', description: 'A full http:// or https:// URL.' },
        max_chars: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_CHARS_LIMIT,
          description: `Characters to return (default ${DEFAULT_MAX_CHARS}).`,
        },
      },
      required: ['url'],
    },
  },
];

function fail(content: string): ToolCallOutcome {
  return { ok: false, content, errorCode: 'tool_error' };
}

export class WebTurnTools implements ToolSource {
  /** Every source numbered in this turn, by URL. */
  readonly sources = new Map<string, WebSource>();
  /** URLs read with web_fetch (shown as sources when the reply cites none by number). */
  readonly read = new Set<string>();

  constructor(
    private readonly web: WebService,
    private readonly needsApproval: boolean,
    private readonly numbers = new SourceNumbers(),
  ) {}

  private number(url: string, title: string): number {
    const known = this.sources.get(url);
    if (known) {
      if (!known.title && title) known.title = title;
      return known.n;
    }
    const n = this.numbers.next();
    this.sources.set(url, { n, url, title });
    return n;
  }

  async list(): Promise<ToolSpec[]> {
    return specs(this.needsApproval);
  }

  async systemPrompt(): Promise<string> {
    return 'Web search is on: use web_search to find current information and web_fetch to read a page. Cite sources inline as [n] with the numbers the tools give.';
  }

  async remember(): Promise<void> {}

  async call(_ws: string, spec: ToolSpec, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolCallOutcome> {
    if (spec.tool === 'web_search') return this.search(args, signal);
    if (spec.tool === 'web_fetch') return this.fetch(args, signal);
    return fail(`There is no web tool named ${spec.tool}.`);
  }

  private async search(args: Record<string, unknown>, signal: AbortSignal): Promise<ToolCallOutcome> {
    const query = typeof args.query === 'string' ? args.query.trim() : '';
    if (!query) return fail('query is required: the words to search for.');
    const raw = args.max_results ?? 5;
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > 10)
      return fail('max_results must be an integer between 1 and 10.');
    try {
      const { provider, results } = await this.web.search(query, raw, signal);
      if (results.length === 0) return { ok: true, content: `The search for "${query}" found nothing (provider ${provider}).` };
      const lines = results.map((r) => {
        const n = this.number(r.url, r.title);
        return `[${n}] ${r.title || r.url}\nURL: ${r.url}${r.date ? `\nDate: ${r.date}` : ''}\n${r.snippet}`.trim();
      });
      return { ok: true, content: `Results for "${query}" (provider ${provider}):\n\n${lines.join('\n\n')}` };
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof SearchFailure) return fail(err.message);
      return fail(`Web search failed: ${(err as Error).message}`);
    }
  }

  private async fetch(args: Record<string, unknown>, signal: AbortSignal): Promise<ToolCallOutcome> {
    if (typeof args.url !== 'string' || !args.url.trim()) return fail('url is required: a full http:// or https:// address.');
    const raw = args.max_chars ?? DEFAULT_MAX_CHARS;
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_CHARS_LIMIT)
      return fail(`max_chars must be an integer between 1 and ${MAX_CHARS_LIMIT}.`);
    try {
      const page = await this.web.fetch(args.url.trim(), signal);
      const n = this.number(page.url, page.title);
      this.read.add(page.url);
      const { text, cut } = cutText(page.markdown, raw);
      const note = cut
        ? `\n\n[cut: showing ${raw} of ${page.markdown.length} characters; call web_fetch with a larger max_chars for more]`
        : '';
      return { ok: true, content: `[${n}] ${page.title}\nURL: ${page.url}\n\n${text}${note}` };
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof WebError) return fail(`web_fetch refused or failed: ${err.message}`);
      return fail(`web_fetch failed: ${(err as Error).message}`);
    }
  }

  /**
   * The sources the reply cites: those whose [n] appears in `text`; when it cites none by number,
   * the pages it read.
   */
  citations(text: string): WebSource[] {
    const cited = new Set([...text.matchAll(/\[(\d{1,3})\]/g)].map((m) => Number(m[1])));
    const all = [...this.sources.values()];
    const picked = all.filter((s) => cited.has(s.n));
    return picked.length > 0 ? picked : all.filter((s) => this.read.has(s.url));
  }
}
