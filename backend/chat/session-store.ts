import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readIfExists, writeFileAtomic } from '../data/atomic-write.js';
import type { DataPaths } from '../data/data-dir.js';
import { SerialQueue } from '../data/serial-queue.js';
import { ApiError } from '../http/errors.js';
import { zeroUsage } from '../llm/llm-types.js';
import { moveToTrash } from '../data/trash.js';
import { newId, type SessionMeta, type SessionSummary } from './chat-types.js';
import { branchHistory, branchPage, type MessagePage } from './branch-page.js';
import { LogIndex } from './log-index.js';
import { SessionListCache } from './session-list.js';
import { readLog, type SessionLog } from './session-log.js';

const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const DEFAULT_TITLE = 'New chat';

export function checkSessionId(id: string): string {
  if (!SESSION_ID.test(id)) throw new ApiError('not_found', `No session with id ${id.slice(0, 80)}.`);
  return id;
}

export function summary(meta: SessionMeta): SessionSummary {
  const { id, title, created_at, updated_at, model, message_count, usage } = meta;
  return {
    id,
    title,
    created_at,
    updated_at,
    model,
    message_count,
    usage,
    model_override: meta.model_override ?? null,
    thinking_override: meta.thinking_override ?? null,
    web_search_override: meta.web_search_override ?? null,
  };
}

export type { MessagePage };

/** workspaces/<id>/sessions/<sid>/: session.json (atomic) and events.jsonl (append-only). */
export class SessionStore {
  private readonly queue = new SerialQueue();
  private readonly listing: SessionListCache;

  /** Set by the engine: a workspace's session folder was read in full (search catches up with it). */
  onFolderRead: (workspaceId: string) => void = () => undefined;

  constructor(private readonly paths: DataPaths) {
    this.listing = new SessionListCache(
      (workspaceId) => paths.workspaceSessions(workspaceId),
      (workspaceId) => this.readAll(workspaceId),
      (workspaceId) => this.onFolderRead(workspaceId),
    );
  }

  dir(workspaceId: string, sessionId: string): string {
    return path.join(this.paths.workspaceSessions(workspaceId), sessionId);
  }

  metaFile(workspaceId: string, sessionId: string): string {
    return path.join(this.dir(workspaceId, sessionId), 'session.json');
  }

  logFile(workspaceId: string, sessionId: string): string {
    return path.join(this.dir(workspaceId, sessionId), 'events.jsonl');
  }

  async get(workspaceId: string, sessionId: string): Promise<SessionMeta | undefined> {
    const text = await readIfExists(this.metaFile(workspaceId, checkSessionId(sessionId)));
    if (text === undefined) return undefined;
    try {
      const meta = JSON.parse(text) as SessionMeta;
      return { ...meta, id: sessionId, usage: { ...zeroUsage(), ...meta.usage } };
    } catch {
      // A session.json is only ever replaced atomically; a broken one was edited by hand.
      const st = await fs.stat(this.metaFile(workspaceId, sessionId));
      const when = st.mtime.toISOString();
      return { id: sessionId, title: sessionId, created_at: when, updated_at: when, model: null, message_count: 0, usage: zeroUsage() };
    }
  }

  async require(workspaceId: string, sessionId: string): Promise<SessionMeta> {
    const meta = await this.get(workspaceId, sessionId);
    if (!meta) throw new ApiError('not_found', `No session with id ${sessionId} in workspace ${workspaceId}.`);
    return meta;
  }

  private async readAll(workspaceId: string): Promise<SessionMeta[]> {
    const names = await fs.readdir(this.paths.workspaceSessions(workspaceId)).catch(() => [] as string[]);
    const metas = await Promise.all(names.filter((n) => SESSION_ID.test(n)).map((n) => this.get(workspaceId, n).catch(() => undefined)));
    return metas.filter((m): m is SessionMeta => !!m);
  }

  /** Every session of the workspace, newest first. */
  list(workspaceId: string): Promise<SessionMeta[]> {
    return this.listing.all(workspaceId);
  }

  /** A page of the list, newest first, after the cursor `before` (the `next` of the previous page). */
  listPage(workspaceId: string, limit: number, before?: string): Promise<{ sessions: SessionMeta[]; next: string | null }> {
    return this.listing.page(workspaceId, limit, before);
  }

  async create(workspaceId: string, title?: string): Promise<SessionMeta> {
    const id = newId('s');
    const now = new Date().toISOString();
    const meta: SessionMeta = {
      id,
      title: title ?? DEFAULT_TITLE,
      created_at: now,
      updated_at: now,
      model: null,
      message_count: 0,
      usage: zeroUsage(),
      last_compaction_at: null,
      auto_title: title === undefined,
    };
    await fs.mkdir(this.dir(workspaceId, id), { recursive: true, mode: 0o700 });
    await fs.writeFile(this.logFile(workspaceId, id), '', { mode: 0o600, flag: 'wx' });
    await writeFileAtomic(this.metaFile(workspaceId, id), `${JSON.stringify(meta, null, 2)}\n`);
    await this.listing.changed(workspaceId, meta);
    return meta;
  }

  /** Read-modify-write of session.json, serialized per session. */
  update(workspaceId: string, sessionId: string, mutate: (meta: SessionMeta) => void): Promise<SessionMeta> {
    const file = this.metaFile(workspaceId, sessionId);
    return this.queue.run(file, async () => {
      const meta = await this.require(workspaceId, sessionId);
      mutate(meta);
      await writeFileAtomic(file, `${JSON.stringify(meta, null, 2)}\n`);
      await this.listing.changed(workspaceId, meta);
      return meta;
    });
  }

  /** Sessions moved into place whole (fork, import): listed, and searched once indexed. */
  async added(workspaceId: string, metas: SessionMeta[]): Promise<void> {
    for (const meta of metas) await this.listing.changed(workspaceId, meta);
    if (metas.length > 0) this.onFolderRead(workspaceId);
  }

  async delete(workspaceId: string, sessionId: string): Promise<string | null> {
    await this.require(workspaceId, sessionId);
    const trashed = await moveToTrash(this.paths, this.dir(workspaceId, sessionId), `session-${workspaceId}-${sessionId}`);
    await this.listing.changed(workspaceId, null, sessionId);
    return trashed;
  }

  readLog(workspaceId: string, sessionId: string, maxBytes?: number): Promise<SessionLog> {
    return readLog(this.logFile(workspaceId, sessionId), maxBytes);
  }

  /** The session's offset index, brought up to date with events.jsonl. */
  index(workspaceId: string, sessionId: string): Promise<LogIndex> {
    return LogIndex.open(this.logFile(workspaceId, sessionId));
  }

  /**
   * The newest `limit` messages of the branch shown before `before` (a message id), oldest first
   * within the page. Reads only the index and the log bytes of the page; `maxBytes` is a snapshot of
   * the log taken at a checkpoint of a running turn.
   */
  async page(
    workspaceId: string,
    sessionId: string,
    before: string | undefined,
    limit: number,
    maxBytes?: number,
  ): Promise<MessagePage & { message_count: number; log_grew: boolean }> {
    const meta = await this.require(workspaceId, sessionId);
    return branchPage(await this.index(workspaceId, sessionId), meta.active_leaf, before, limit, maxBytes);
  }

  /**
   * The newest items of the branch that ends at the user message `userId` that fit in `budgetBytes`
   * of log, starting at a user message: what a turn may send to the model. `base` is the position of
   * the first one on that branch.
   */
  async history(workspaceId: string, sessionId: string, userId: string, budgetBytes: number) {
    return branchHistory(await this.index(workspaceId, sessionId), userId, budgetBytes);
  }
}
