import { promises as fs } from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { Logger } from '../log/logger.js';
import type { FileProblem } from '../data/data-api.js';
import { envOverrides, envPrefix, maskKey } from './env-overrides.js';
import {
  DefaultsSchema,
  ProviderSchema,
  type Defaults,
  type MaskedProvider,
  type ProviderEntry,
  type ProvidersResponse,
} from './config-api.js';

export interface ConfigSnapshot {
  providers: ProviderEntry[];
  defaults: Defaults;
  /** Problems found while reading: syntax errors (file unwritable) and invalid entries. */
  problems: FileProblem[];
  /** True when the YAML itself failed to parse: the file must not be written until fixed. */
  broken: boolean;
  document: Document | null;
}

export interface ConfigStoreOptions {
  file: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** `-model` flag: fallback default below config.yaml `defaults`. */
  fallbackModel?: string;
}

/** Reads config.yaml (providers and defaults), applying env overrides and reporting problems. */
export class ConfigStore {
  private current: ConfigSnapshot = { providers: [], defaults: {}, problems: [], broken: false, document: null };
  /** Text the snapshot was parsed from, so a re-read only re-parses (and re-logs) on change. */
  private lastText: string | null = null;
  /** stat() signature of the file at the last read that may be trusted (see refresh). */
  private lastStat: string | null = null;
  private refreshing: Promise<ConfigSnapshot> | null = null;

  constructor(private readonly options: ConfigStoreOptions) {}

  get file(): string {
    return this.options.file;
  }

  snapshot(): ConfigSnapshot {
    return this.current;
  }

  async load(): Promise<ConfigSnapshot> {
    let text: string;
    try {
      text = await fs.readFile(this.options.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      text = '';
    }
    this.lastText = text;
    this.current = parseConfig(this.options.file, text);
    for (const problem of this.current.problems) {
      this.options.logger.error(`config error: ${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`);
    }
    for (const provider of this.current.providers) {
      if (provider.base_url?.endsWith('/')) {
        this.options.logger.warn(
          `warning: ${this.options.file}: provider ${provider.id} base_url ends with "/"; using it without the slash`,
        );
      }
    }
    return this.current;
  }

  /** Re-reads the file when it changed on disk (hand edits while the service runs). */
  refresh(): Promise<ConfigSnapshot> {
    // Concurrent requests share one check: under load, per-request file checks dominated GET time.
    this.refreshing ??= this.recheck().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async recheck(): Promise<ConfigSnapshot> {
    // One stat() instead of open/read/close per request.
    const st = await fs.stat(this.options.file).catch(() => null);
    const signature = st ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : 'missing';
    if (signature === this.lastStat) return this.current;
    const text = await fs.readFile(this.options.file, 'utf8').catch(() => '');
    // Trust the signature only for a file untouched for 2 s: coarse timestamps can hide a quick edit.
    this.lastStat = !st || Date.now() - Math.max(st.mtimeMs, st.ctimeMs) > 2000 ? signature : null;
    if (text === this.lastText) return this.current;
    return this.load();
  }

  /** Replaces the in-memory snapshot after a successful write. */
  replace(snapshot: ConfigSnapshot, text?: string): void {
    this.current = snapshot;
    if (text !== undefined) this.lastText = text;
  }

  get env(): NodeJS.ProcessEnv {
    return this.options.env;
  }

  effectiveDefault(): string | null {
    const { defaults } = this.current;
    if (defaults.provider && defaults.model) return `${defaults.provider}:${defaults.model}`;
    return this.options.fallbackModel || null;
  }

  /** The provider as clients use it: env overrides applied, base_url without trailing slash. */
  resolved(provider: ProviderEntry): ProviderEntry & { api_key_source: 'file' | 'env' | 'none' } {
    const env = envOverrides(provider.name, this.options.env);
    const baseUrl = (env.baseUrl ?? provider.base_url)?.replace(/\/+$/, '');
    // Trimmed as HTTP will send it, so that scrubbing recognises the key a provider echoes.
    const fileKey = provider.api_key?.trim() || undefined;
    const apiKey = env.apiKey ?? fileKey;
    const source = env.apiKey ? 'env' : fileKey ? 'file' : 'none';
    return { ...provider, base_url: baseUrl, api_key: apiKey, api_key_source: source };
  }

  masked(provider: ProviderEntry): MaskedProvider {
    const env = envOverrides(provider.name, this.options.env);
    const r = this.resolved(provider);
    return {
      id: provider.id,
      name: provider.name,
      type: provider.type,
      base_url: r.base_url ?? null,
      base_url_source: env.baseUrl ? 'env' : provider.base_url ? 'file' : 'none',
      enabled: provider.enabled,
      models: provider.models,
      api_key_set: !!r.api_key,
      api_key_hint: r.api_key ? maskKey(r.api_key) : null,
      api_key_source: r.api_key_source,
      env_prefix: envPrefix(provider.name),
    };
  }

  providersResponse(): ProvidersResponse {
    const { providers, defaults, problems } = this.current;
    return {
      providers: providers.map((p) => this.masked(p)),
      defaults: { provider: defaults.provider ?? null, model: defaults.model ?? null },
      effective_default: this.effectiveDefault(),
      errors: problems,
    };
  }
}

/** Parses config.yaml text into a snapshot; never throws on bad content. */
export function parseConfig(file: string, text: string): ConfigSnapshot {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number | undefined) => (offset === undefined ? null : lineCounter.linePos(offset).line);
  if (document.errors.length > 0) {
    const problems = document.errors.map((e) => ({
      file,
      line: e.linePos?.[0]?.line ?? lineOf(e.pos[0]),
      message: e.message.split('\n')[0],
    }));
    return { providers: [], defaults: {}, problems, broken: true, document: null };
  }
  const root: unknown = document.toJS() ?? {};
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    return {
      providers: [],
      defaults: {},
      problems: [{ file, line: 1, message: 'the top level must be a mapping with providers and defaults' }],
      broken: true,
      document: null,
    };
  }
  const problems: FileProblem[] = [];
  const nodeLine = (path: (string | number)[]) => {
    const node = document.getIn(path, true) as { range?: [number, number, number] } | undefined;
    return lineOf(node?.range?.[0]);
  };
  const raw = root as { providers?: unknown; defaults?: unknown };
  const providers: ProviderEntry[] = [];
  if (raw.providers !== undefined && raw.providers !== null && !Array.isArray(raw.providers)) {
    problems.push({ file, line: nodeLine(['providers']), message: 'providers must be a list' });
  } else {
    const seen = new Set<string>();
    ((raw.providers as unknown[] | undefined) ?? []).forEach((entry, i) => {
      const parsed = ProviderSchema.safeParse(entry);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const path = ['providers', i, ...(issue?.path ?? [])] as (string | number)[];
        problems.push({ file, line: nodeLine(path), message: `providers[${i}]: ${issue?.message ?? 'invalid entry'}` });
        return;
      }
      if (seen.has(parsed.data.id)) {
        problems.push({ file, line: nodeLine(['providers', i]), message: `providers[${i}]: duplicate provider id ${parsed.data.id}` });
        return;
      }
      seen.add(parsed.data.id);
      providers.push(parsed.data);
    });
  }
  const defaultsParsed = DefaultsSchema.safeParse(raw.defaults ?? {});
  if (!defaultsParsed.success)
    problems.push({ file, line: nodeLine(['defaults']), message: 'defaults must be a mapping with provider and model' });
  return { providers, defaults: defaultsParsed.success ? defaultsParsed.data : {}, problems, broken: false, document };
}
