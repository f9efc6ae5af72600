import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readIfExists, writeFileAtomic } from '../data/atomic-write.js';
import type { DataPaths } from '../data/data-dir.js';
import { SerialQueue } from '../data/serial-queue.js';
import { ApiError } from '../http/errors.js';
import { zeroUsage } from '../llm/llm-types.js';
import { moveToTrash } from '../data/trash.js';
import { newId, publicMessage, type MessageView, type SessionMeta, type SessionSummary } from './chat-types.js';
import { readLog, type SessionLog } from './session-log.js';
import { activeLeaf, branchItems, buildTree, siblingInfo, type SessionTree } from './session-tree.js';

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
  };
}

export interface MessagePage {
  messages: MessageView[];
  has_more: boolean;
}

/** A page of the branch that ends at `leaf`: each message with its parent and its place among its siblings. */
export function branchPage(tree: SessionTree, leaf: string | null, before: string | undefined, limit: number): MessagePage {
  const items = branchItems(tree, leaf);
  let end = items.length;
  if (before !== undefined) {
    end = items.findIndex((m) => m.id === before);
    if (end < 0)
      throw new ApiError('validation_failed', `before must be the id of a message on the shown branch (no ${before.slice(0, 80)}).`, {
        field: 'before',
      });
  }
  const start = Math.max(0, end - limit);
  const messages = items.slice(start, end).map((item) => {
    const view = publicMessage(item);
    return item.role === 'system' ? view : { ...view, parent_id: item.parent_id ?? null, siblings: siblingInfo(tree, item.id) };
  });
  return { messages, has_more: start > 0 };
}

/** workspaces/<id>/sessions/<sid>/: session.json (atomic) and events.jsonl (append-only). */
export class SessionStore {
  private readonly queue = new SerialQueue();

  constructor(private readonly paths: DataPaths) {}

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

  async list(workspaceId: string): Promise<SessionMeta[]> {
    const names = await fs.readdir(this.paths.workspaceSessions(workspaceId)).catch(() => [] as string[]);
    const metas = await Promise.all(names.filter((n) => SESSION_ID.test(n)).map((n) => this.get(workspaceId, n).catch(() => undefined)));
    return metas
      .filter((m): m is SessionMeta => !!m)
      .sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
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
    return meta;
  }

  /** Read-modify-write of session.json, serialized per session. */
  update(workspaceId: string, sessionId: string, mutate: (meta: SessionMeta) => void): Promise<SessionMeta> {
    const file = this.metaFile(workspaceId, sessionId);
    return this.queue.run(file, async () => {
      const meta = await this.require(workspaceId, sessionId);
      mutate(meta);
      await writeFileAtomic(file, `${JSON.stringify(meta, null, 2)}\n`);
      return meta;
    });
  }

  async delete(workspaceId: string, sessionId: string): Promise<string | null> {
    await this.require(workspaceId, sessionId);
    return moveToTrash(this.paths, this.dir(workspaceId, sessionId), `session-${workspaceId}-${sessionId}`);
  }

  readLog(workspaceId: string, sessionId: string, maxBytes?: number): Promise<SessionLog> {
    return readLog(this.logFile(workspaceId, sessionId), maxBytes);
  }

  /** The newest `limit` messages before `before` (a message id), oldest first within the page. */
  async page(
    workspaceId: string,
    sessionId: string,
    before: string | undefined,
    limit: number,
    maxBytes?: number,
  ): Promise<MessagePage & { log: SessionLog }> {
    const meta = await this.require(workspaceId, sessionId);
    const log = await this.readLog(workspaceId, sessionId, maxBytes);
    const tree = buildTree(log.items);
    return { ...branchPage(tree, activeLeaf(tree, meta.active_leaf), before, limit), log };
  }
}
