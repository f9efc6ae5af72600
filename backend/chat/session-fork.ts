import path from 'node:path';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import { ApiError } from '../http/errors.js';
import { addUsage, zeroUsage } from '../llm/llm-types.js';
import { attachmentRefs } from './attachment-refs.js';
import { newId, type LogRecord, type SessionMeta } from './chat-types.js';
import { SessionBatch } from './session-batch.js';
import type { SessionStore } from './session-store.js';
import { branchItems, buildTree } from './session-tree.js';

/** A session's fields for one that starts out holding `count` messages. */
export function freshMeta(fields: Partial<SessionMeta> & { title: string }): SessionMeta {
  const now = new Date().toISOString();
  return {
    id: newId('s'),
    created_at: now,
    updated_at: now,
    model: null,
    message_count: 0,
    usage: zeroUsage(),
    last_compaction_at: null,
    auto_title: false,
    ...fields,
  };
}

/**
 * `POST …/fork {message_id}` (DESIGN 7): a new session in the same workspace holding the path
 * from the root to that message (and the compaction records that apply to it), titled
 * `<title> (fork)`. The copy keeps message ids and parents, so it is the same branch, and the
 * attachments its messages refer to are copied with it (DESIGN 8).
 */
export async function forkSession(
  store: SessionStore,
  attachments: AttachmentStore,
  workspaceId: string,
  sessionId: string,
  messageId: string,
): Promise<SessionMeta> {
  const source = await store.require(workspaceId, sessionId);
  const tree = buildTree((await store.readLog(workspaceId, sessionId)).items);
  if (!tree.byId.has(messageId))
    throw new ApiError('validation_failed', `message_id must be the id of a message in this session (no ${messageId.slice(0, 80)}).`, {
      field: 'message_id',
    });
  const items = branchItems(tree, messageId);
  const records: LogRecord[] = [];
  let usage = zeroUsage();
  let model: string | null = null;
  let count = 0;
  for (const item of items) {
    if (item.role === 'system') {
      records.push({ t: 'compaction', c: item });
      continue;
    }
    const { interrupted: _i, ...m } = item;
    records.push({ t: 'message', m: { ...m, parent_id: item.parent_id ?? null } });
    count += 1;
    if (item.usage) usage = addUsage(usage, item.usage);
    if (item.model) model = item.model;
  }
  const meta = freshMeta({
    title: `${source.title} (fork)`.slice(0, 200),
    model,
    message_count: count,
    usage,
    active_leaf: messageId,
    model_override: source.model_override ?? null,
    thinking_override: source.thinking_override ?? null,
    web_search_override: source.web_search_override ?? null,
  });
  const batch = await SessionBatch.begin(store, workspaceId);
  try {
    await batch.add(meta, records);
    const ids = attachmentRefs(items).keys();
    await attachments.copyInto(workspaceId, sessionId, path.join(batch.stagedDir(meta.id), 'attachments'), ids);
    await batch.commit();
  } catch (err) {
    await batch.abort();
    throw err;
  }
  return meta;
}
