import { isMap, isSeq, type Document, type YAMLMap } from 'yaml';
import { readIfExists, writeFileAtomic } from '../data/atomic-write.js';
import type { SerialQueue } from '../data/serial-queue.js';
import { ApiError } from '../http/errors.js';
import { parseConfig, type ConfigSnapshot, type ConfigStore } from './config-store.js';
import { envOverrides, maskKey } from './env-overrides.js';
import { configInvalid } from '../data/document-file.js';
import { assignNode, ensureTopLevel } from '../data/yaml-edit.js';
import { PROVIDER_KEYS, type Defaults, type MaskedProvider, type ModelEntry, type ProviderInput } from './config-api.js';

/**
 * The write side of config.yaml. Every change re-reads the file inside the file's queue slot
 * (so hand fixes are picked up and concurrent API writes never lose each other), edits the YAML
 * document in place and writes it atomically.
 */
export class ConfigWriter {
  constructor(
    private readonly store: ConfigStore,
    private readonly queue: SerialQueue,
  ) {}

  private edit<T>(mutate: (doc: Document, before: ConfigSnapshot) => T): Promise<T> {
    const file = this.store.file;
    return this.queue.run(file, async () => {
      const before = parseConfig(file, (await readIfExists(file)) ?? '');
      if (before.broken || !before.document) throw configInvalid(before.problems);
      const doc = before.document;
      const result = mutate(doc, before);
      const text = doc.toString();
      const after = parseConfig(file, text);
      if (after.broken) throw new ApiError('internal_error', 'The edited configuration would not parse.');
      await writeFileAtomic(file, text, { mode: 0o600 });
      this.store.replace(after, text);
      return result;
    });
  }

  /** Sets top-level keys other areas own (the web keys, DESIGN 14) through the same queue and checks. */
  async setTopLevel(values: Record<string, Record<string, unknown>>, prune: ReadonlySet<string>): Promise<void> {
    await this.edit((doc) => {
      for (const [key, value] of Object.entries(values)) assignNode(doc, ensureTopLevel(doc, key, 'map'), value, { prune });
    });
  }

  private providerNodes(doc: Document): YAMLMap[] {
    const seq = ensureTopLevel(doc, 'providers', 'seq');
    return isSeq(seq) ? (seq.items.filter((i) => isMap(i)) as YAMLMap[]) : [];
  }

  private find(doc: Document, id: string): YAMLMap | undefined {
    return this.providerNodes(doc).find((node) => node.get('id') === id);
  }

  /** What goes into the file: env-provided values and masked hints sent back are not stored. */
  private fileValues(
    input: ProviderInput & { id: string },
    node: YAMLMap | undefined,
  ): { value: Record<string, unknown>; keepKey: boolean } {
    const env = envOverrides(input.name, this.store.env);
    const value: Record<string, unknown> = { ...input };
    const storedKey = node?.get('api_key');
    let keepKey = input.api_key === undefined;
    if (typeof input.api_key === 'string' && input.api_key !== '') {
      if (input.api_key === env.apiKey) keepKey = true;
      if (typeof storedKey === 'string' && input.api_key === maskKey(storedKey.trim())) keepKey = true;
    }
    if (keepKey || input.api_key === null || input.api_key === '') delete value.api_key;
    if (env.baseUrl && input.base_url === env.baseUrl.replace(/\/+$/, '')) {
      const stored = node?.get('base_url');
      if (typeof stored === 'string') value.base_url = stored;
      else delete value.base_url;
    }
    return { value, keepKey };
  }

  private write(node: YAMLMap, doc: Document, input: ProviderInput & { id: string }): void {
    const { value, keepKey } = this.fileValues(input, node);
    const prune = new Set(PROVIDER_KEYS);
    if (keepKey) prune.delete('api_key');
    if (value.base_url === undefined && envOverrides(input.name, this.store.env).baseUrl) prune.delete('base_url');
    assignNode(doc, node, value, { prune });
  }

  async createProvider(input: ProviderInput & { id: string }): Promise<MaskedProvider> {
    await this.edit((doc) => {
      if (this.find(doc, input.id)) throw new ApiError('conflict', `A provider with id ${input.id} already exists.`, { field: 'id' });
      const seq = ensureTopLevel(doc, 'providers', 'seq');
      if (isSeq(seq)) seq.flow = false;
      const node = doc.createNode({ id: input.id }) as YAMLMap;
      this.write(node, doc, input);
      (seq as { add(v: unknown): void }).add(node);
    });
    return this.masked(input.id);
  }

  async replaceProvider(input: ProviderInput & { id: string }): Promise<MaskedProvider> {
    await this.edit((doc) => {
      const node = this.find(doc, input.id);
      if (!node) throw new ApiError('not_found', `No provider with id ${input.id}.`);
      this.write(node, doc, input);
    });
    return this.masked(input.id);
  }

  /** Deletes a provider; defaults that named it are cleared rather than left dangling. */
  async deleteProvider(id: string): Promise<void> {
    await this.edit((doc) => {
      const seq = ensureTopLevel(doc, 'providers', 'seq');
      const index = isSeq(seq) ? seq.items.findIndex((i) => isMap(i) && i.get('id') === id) : -1;
      if (index < 0) throw new ApiError('not_found', `No provider with id ${id}.`);
      (seq as { delete(i: number): void }).delete(index);
      const defaults = doc.get('defaults', true);
      if (isMap(defaults) && defaults.get('provider') === id) {
        defaults.delete('provider');
        defaults.delete('model');
      }
    });
  }

  async setDefaults(input: Required<Pick<Defaults, 'provider' | 'model'>>): Promise<void> {
    await this.edit((doc, before) => {
      const provider = before.providers.find((p) => p.id === input.provider);
      if (!provider)
        throw new ApiError('validation_failed', `provider must name a configured provider (no ${input.provider}).`, { field: 'provider' });
      if (!provider.enabled)
        throw new ApiError('validation_failed', `provider must name an enabled provider (${input.provider} is disabled).`, {
          field: 'provider',
        });
      if (!provider.models.some((m) => m.id === input.model)) {
        throw new ApiError('validation_failed', `model must be one of the models of ${input.provider} (no ${input.model}).`, {
          field: 'model',
        });
      }
      assignNode(doc, ensureTopLevel(doc, 'defaults', 'map'), { provider: input.provider, model: input.model });
    });
  }

  /** Adds remote models the provider does not list yet; returns the ids added. */
  async mergeModels(id: string, remote: ModelEntry[]): Promise<string[]> {
    return this.edit((doc) => {
      const node = this.find(doc, id);
      if (!node) throw new ApiError('not_found', `No provider with id ${id}.`);
      let seq = node.get('models', true) as unknown;
      if (!isSeq(seq)) {
        seq = doc.createNode([]);
        node.set('models', seq);
      }
      if (!isSeq(seq)) throw new ApiError('internal_error');
      const known = new Set(seq.items.map((i) => (isMap(i) ? i.get('id') : undefined)));
      const added = remote.filter((m) => !known.has(m.id));
      if (added.length > 0) seq.flow = false;
      for (const m of added) seq.add(doc.createNode(m));
      return added.map((m) => m.id);
    });
  }

  private masked(id: string): MaskedProvider {
    const provider = this.store.snapshot().providers.find((p) => p.id === id);
    if (!provider) throw new ApiError('internal_error', `Provider ${id} vanished after the write.`);
    return this.store.masked(provider);
  }
}
