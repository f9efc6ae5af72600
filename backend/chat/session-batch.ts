import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { TEMP_PREFIX } from '../data/atomic-write.js';
import type { LogRecord, SessionMeta } from './chat-types.js';
import { recordLine } from './session-log.js';
import type { SessionStore } from './session-store.js';

const CHUNK_CHARS = 1 << 20;

/**
 * New sessions written whole before any becomes visible (fork, import): each is built in a
 * hidden staging folder beside the sessions and renamed into place at commit, so a failure
 * midway leaves nothing half-imported and never touches an existing session.
 */
export class SessionBatch {
  private readonly ready: string[] = [];
  private readonly metas: SessionMeta[] = [];

  private constructor(
    private readonly store: SessionStore,
    private readonly workspaceId: string,
    private readonly staging: string,
  ) {}

  static async begin(store: SessionStore, workspaceId: string): Promise<SessionBatch> {
    const root = path.dirname(store.dir(workspaceId, 'x'));
    await fs.mkdir(root, { recursive: true, mode: 0o700 });
    const staging = path.join(root, `${TEMP_PREFIX}batch-${randomBytes(6).toString('hex')}`);
    await fs.mkdir(staging, { mode: 0o700 });
    return new SessionBatch(store, workspaceId, staging);
  }

  /** Where a session added to this batch is built until commit (its attachments go beneath it). */
  stagedDir(sessionId: string): string {
    return path.join(this.staging, sessionId);
  }

  get size(): number {
    return this.ready.length;
  }

  /** Writes one session (its log streamed in chunks, fsynced) into the staging folder. */
  async add(meta: SessionMeta, records: Iterable<LogRecord>): Promise<void> {
    const dir = path.join(this.staging, meta.id);
    await fs.mkdir(dir, { mode: 0o700 });
    const handle = await fs.open(path.join(dir, 'events.jsonl'), 'wx', 0o600);
    try {
      let chunk = '';
      for (const r of records) {
        chunk += recordLine(r);
        if (chunk.length >= CHUNK_CHARS) {
          await handle.write(chunk);
          chunk = '';
        }
      }
      if (chunk) await handle.write(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.writeFile(path.join(dir, 'session.json'), `${JSON.stringify(meta, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    this.ready.push(meta.id);
    this.metas.push(meta);
  }

  /** Moves every staged session into place; on a failure the ones already moved go back. */
  async commit(): Promise<void> {
    const moved: string[] = [];
    try {
      for (const id of this.ready) {
        const target = this.store.dir(this.workspaceId, id);
        // Session ids are fresh; a clash would mean overwriting: refuse instead.
        if (
          await fs.stat(target).then(
            () => true,
            () => false,
          )
        )
          throw new Error(`session ${id} already exists`);
        await fs.rename(path.join(this.staging, id), target);
        moved.push(id);
      }
    } catch (err) {
      for (const id of moved.reverse())
        await fs.rename(this.store.dir(this.workspaceId, id), path.join(this.staging, id)).catch(() => undefined);
      await this.abort();
      throw err;
    }
    await this.abort();
    // The session list (kept in memory) and the search index learn of them at once.
    await this.store.added(this.workspaceId, this.metas);
  }

  /** Drops everything staged. */
  async abort(): Promise<void> {
    await fs.rm(this.staging, { recursive: true, force: true });
  }
}
