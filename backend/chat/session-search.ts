import path from 'node:path';
import type { DataPaths } from '../data/data-dir.js';
import type { Logger } from '../log/logger.js';
import { SearchIndex, type SearchPage } from './search-index.js';

export type { SearchPage };

/**
 * Search across sessions through the persistent index, opened on first use (node:sqlite is not
 * loaded at start) or shortly after start, when it catches up with the logs in the background.
 */
export class SessionSearch {
  private index: Promise<SearchIndex> | null = null;
  private closed = false;
  /** Updates in flight: a search waits for them, so what was just stored is found. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly paths: DataPaths,
    private readonly logger: Logger,
  ) {}

  /** Opens the index and brings it up to date with every log (a rebuild when it was missing or damaged). */
  start(): void {
    void this.ready().catch(() => undefined);
  }

  private ready(): Promise<SearchIndex> {
    this.index ??= SearchIndex.open(path.join(this.paths.root, 'search-index.sqlite'), this.paths.workspacesDir, this.logger).then(
      (index) => {
        // In the background: a search meanwhile answers with what is indexed and `indexing: true`.
        // The documented "idle" signal (docs/command-line.md): after it the backend writes to the
        // data directory only for a request, a turn or a scheduled backup.
        void index.catchUp().then((ok) => ok && this.logger.info('search: index up to date'));
        return index;
      },
    );
    this.index.catch((err: Error) => {
      this.logger.error(`search: cannot open the index: ${err.message}`);
      this.index = null;
    });
    return this.index;
  }

  /** After messages were stored: indexes what the session's log gained. Never fails the caller. */
  indexed(workspaceId: string, sessionId: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const update = this.ready()
      .then((index) => index.update(workspaceId, sessionId))
      .catch((err: Error) => this.logger.error(`search: indexing session ${sessionId} failed: ${err.message}`))
      .finally(() => this.pending.delete(update));
    this.pending.add(update);
    return update;
  }

  /** A workspace's session folder changed from outside (sessions copied in, say): index what is new. */
  refreshWorkspace(workspaceId: string): void {
    if (this.closed) return;
    const update = this.ready()
      .then((index) => index.catchUpWorkspace(workspaceId))
      .catch((err: Error) => this.logger.error(`search: indexing workspace ${workspaceId} failed: ${err.message}`))
      .finally(() => this.pending.delete(update));
    this.pending.add(update);
  }

  async forgetSession(workspaceId: string, sessionId: string): Promise<void> {
    await this.ready().then(
      (index) => index.removeSession(workspaceId, sessionId),
      () => undefined,
    );
  }

  async forgetWorkspace(workspaceId: string): Promise<void> {
    await this.ready().then(
      (index) => index.removeWorkspace(workspaceId),
      () => undefined,
    );
  }

  async search(q: string, options: { workspaceId?: string; limit: number; offset: number }): Promise<SearchPage> {
    const index = await this.ready();
    await Promise.all([...this.pending]);
    return index.search(q, options);
  }

  async close(): Promise<void> {
    this.closed = true;
    const index = await this.index?.catch(() => null);
    index?.close();
  }
}
