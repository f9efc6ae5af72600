import { Router } from 'express';
import { z } from 'zod';
import { ATTACHMENT_LIMITS } from '../attachments/attachment-api.js';
import type { ChatEngine } from '../chat/chat-engine.js';
import { checkSessionId, summary } from '../chat/session-store.js';
import type { ConfigStore } from '../config/config-store.js';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { parseBody } from '../http/validation.js';
import { requireModel } from '../chat/model-catalog.js';
import { ApiError } from '../http/errors.js';
import { SessionPatchSchema } from './branch-routes.js';
import { checkWorkspaceId } from './workspace-routes.js';
import { knowledgeBaseIds } from '../workspaces/workspace-api.js';

const TitleSchema = z.object({
  title: z
    .string({ error: 'title must be a string' })
    .trim()
    .min(1, 'title must not be empty')
    .max(200, 'title must be at most 200 characters'),
});
const CreateSchema = TitleSchema.partial();
const MessageSchema = z
  .object({
    content: z.string({ error: 'content must be a string' }),
    parent_id: z.string({ error: 'parent_id must be a message id or null' }).min(1, 'parent_id must not be empty').nullable().optional(),
    attachments: z
      .array(z.string({ error: 'attachments must be attachment ids' }), { error: 'attachments must be a list of attachment ids' })
      .max(ATTACHMENT_LIMITS.maxPerMessage, `attachments may list at most ${ATTACHMENT_LIMITS.maxPerMessage} ids`)
      .default([]),
    // DESIGN 9: MCP resources to read now and store with the message.
    resources: z
      .array(z.object({ server: z.string().min(1, 'server is required'), uri: z.string().min(1, 'uri is required') }), {
        error: 'resources must be a list of {server, uri}',
      })
      .max(10, 'resources must hold at most 10 entries')
      .default([]),
    // DESIGN 13: knowledge bases for this message's turn (the `#` picker), beside the workspace's.
    knowledge_bases: knowledgeBaseIds.default([]),
  })
  .refine((m) => m.content.trim().length > 0 || m.attachments.length > 0 || m.resources.length > 0, {
    message: 'content must not be empty (unless the message carries attachments or resources)',
    path: ['content'],
  });

/**
 * Reads the resources a message refers to and stores them as attachments of the session, returning
 * their ids (tool servers, wired in by service.ts).
 */
export type ResourceReader = (workspaceId: string, sessionId: string, refs: { server: string; uri: string }[]) => Promise<string[]>;
const ApprovalSchema = z.object({
  call_id: z.string({ error: 'call_id must be a string' }).min(1, 'call_id must not be empty'),
  decision: z.enum(['allow', 'deny'], { error: 'decision must be "allow" or "deny"' }),
  remember: z.boolean({ error: 'remember must be true or false' }).optional(),
});

const DEFAULT_PAGE = 50;
const DEFAULT_HITS = 20;
const MAX_HITS = 100;
const MAX_OFFSET = 10_000;

function boundedInt(raw: unknown, field: string, min: number, max: number): number {
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isInteger(n) || n < min || n > max)
    throw new ApiError('validation_failed', `${field} must be an integer between ${min} and ${max}.`, { field });
  return n;
}

/** Sessions listed when no limit is given. */
const DEFAULT_LIST = 200;
const MAX_PAGE = 500;

function pageLimit(raw: unknown): number {
  if (raw === undefined) return DEFAULT_PAGE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) {
    throw new ApiError('validation_failed', `limit must be an integer between 1 and ${MAX_PAGE}.`, { field: 'limit' });
  }
  return n;
}

/** Sessions, turns and search (DESIGN 6, HTTP). */
export function chatRoutes(
  stores: { workspaces: WorkspaceStore; config: ConfigStore },
  engine: ChatEngine,
  readResources?: ResourceReader,
): Router {
  const router = Router();
  const { sessions } = engine;
  const workspace = async (raw: string) => {
    const id = checkWorkspaceId(raw);
    if (!(await stores.workspaces.get(id))) throw new ApiError('not_found', `No workspace with id ${id}.`);
    return id;
  };
  const base = '/api/workspaces/:id/sessions';

  router.get(base, async (req, res) => {
    const wid = await workspace(req.params.id);
    const limit = req.query.limit === undefined ? DEFAULT_LIST : pageLimit(req.query.limit);
    const before = typeof req.query.before === 'string' ? req.query.before : undefined;
    const page = await sessions.listPage(wid, limit, before);
    res.json({ sessions: page.sessions.map(summary), next: page.next });
  });
  router.post(base, async (req, res) => {
    const wid = await workspace(req.params.id);
    const input = parseBody(CreateSchema, req.body ?? {});
    res.status(201).json(summary(await sessions.create(wid, input.title)));
  });
  router.get(`${base}/:sid`, async (req, res) => {
    const wid = await workspace(req.params.id);
    const sid = checkSessionId(req.params.sid);
    const before = typeof req.query.before === 'string' ? req.query.before : undefined;
    res.json(await engine.sessionView(wid, sid, before, pageLimit(req.query.limit)));
  });
  router.patch(`${base}/:sid`, async (req, res) => {
    const wid = await workspace(req.params.id);
    const sid = checkSessionId(req.params.sid);
    const input = parseBody(SessionPatchSchema, req.body);
    const current = await sessions.require(wid, sid);
    if (input.model) await requireModel(stores.config, input.model);
    if (input.thinking?.enabled) {
      // Thinking asked of a model that says it cannot think would be ignored at every turn: refuse it.
      const ref = input.model === undefined ? (current.model_override ?? undefined) : (input.model ?? undefined);
      const model = await engine.resolveModel(wid, ref);
      if (model.entry?.supports_thinking === false)
        throw new ApiError(
          'validation_failed',
          `thinking: ${model.ref} does not support thinking (supports_thinking is false); choose a model that does, or leave thinking off.`,
          { field: 'thinking' },
        );
    }
    const meta = await sessions.update(wid, sid, (m) => {
      if (input.title !== undefined) {
        m.title = input.title;
        m.auto_title = false;
      }
      if (input.model !== undefined) m.model_override = input.model;
      if (input.thinking !== undefined) m.thinking_override = input.thinking;
      if (input.web_search !== undefined) m.web_search_override = input.web_search;
    });
    res.json(summary(meta));
  });
  router.delete(`${base}/:sid`, async (req, res) => {
    const wid = await workspace(req.params.id);
    const sid = checkSessionId(req.params.sid);
    if (engine.activeTurn(wid, sid))
      throw new ApiError('turn_in_progress', 'A turn is running in this session; cancel it before deleting.');
    const trashed = await sessions.delete(wid, sid);
    await engine.search.forgetSession(wid, sid);
    res.json({ deleted: sid, trashed_to: trashed });
  });
  router.post(`${base}/:sid/messages`, async (req, res) => {
    const wid = await workspace(req.params.id);
    const sid = checkSessionId(req.params.sid);
    const { content, parent_id, attachments, resources, knowledge_bases } = parseBody(MessageSchema, req.body);
    if (resources.length && !readResources)
      throw new ApiError('validation_failed', 'resources: no tool servers here', { field: 'resources' });
    let resourceIds: string[] = [];
    if (resources.length) {
      // Read into the session's folder only once the session is known to exist.
      await engine.sessions.require(wid, sid);
      resourceIds = await readResources!(wid, sid, resources);
    }
    res.status(202).json(await engine.startTurn(wid, sid, content, parent_id, attachments, resourceIds, knowledge_bases));
  });
  router.post(`${base}/:sid/turns/:tid/cancel`, async (req, res) => {
    const wid = await workspace(req.params.id);
    const sid = checkSessionId(req.params.sid);
    await engine.cancel(wid, sid, req.params.tid);
    res.json({ cancelled: req.params.tid });
  });
  router.post(`${base}/:sid/turns/:tid/approvals`, async (req, res) => {
    const wid = await workspace(req.params.id);
    const sid = checkSessionId(req.params.sid);
    const input = parseBody(ApprovalSchema, req.body);
    engine.approve(wid, sid, req.params.tid, input.call_id, { decision: input.decision, remember: input.remember === true });
    res.json({ call_id: input.call_id, decision: input.decision });
  });
  router.get('/api/search', async (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q.trim() : '';
    if (!q) throw new ApiError('validation_failed', 'q must be a non-empty search text.', { field: 'q' });
    if (q.length > 200) throw new ApiError('validation_failed', 'q must be at most 200 characters.', { field: 'q' });
    const limit = req.query.limit === undefined ? DEFAULT_HITS : boundedInt(req.query.limit, 'limit', 1, MAX_HITS);
    const offset = req.query.offset === undefined ? 0 : boundedInt(req.query.offset, 'offset', 0, MAX_OFFSET);
    const raw = req.query.workspace_id;
    const workspaceId = raw === undefined ? undefined : await workspace(typeof raw === 'string' ? raw : '');
    res.json(await engine.search.search(q, { workspaceId, limit, offset }));
  });
  return router;
}
