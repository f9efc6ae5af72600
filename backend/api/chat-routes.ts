import { Router } from 'express';
import { z } from 'zod';
import type { ChatEngine } from '../chat/chat-engine.js';
import { checkSessionId, summary } from '../chat/session-store.js';
import { searchSessions } from '../chat/session-search.js';
import type { ConfigStore } from '../config/config-store.js';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { parseBody } from '../http/validation.js';
import { requireModel } from '../chat/model-catalog.js';
import { ApiError } from '../http/errors.js';
import { SessionPatchSchema } from './branch-routes.js';
import { checkWorkspaceId } from './workspace-routes.js';

const TitleSchema = z.object({
  title: z
    .string({ error: 'title must be a string' })
    .trim()
    .min(1, 'title must not be empty')
    .max(200, 'title must be at most 200 characters'),
});
const CreateSchema = TitleSchema.partial();
const MessageSchema = z.object({
  content: z.string({ error: 'content must be a string' }).refine((s) => s.trim().length > 0, 'content must not be empty'),
  parent_id: z.string({ error: 'parent_id must be a message id or null' }).min(1, 'parent_id must not be empty').nullable().optional(),
});
const ApprovalSchema = z.object({
  call_id: z.string({ error: 'call_id must be a string' }).min(1, 'call_id must not be empty'),
  decision: z.enum(['allow', 'deny'], { error: 'decision must be "allow" or "deny"' }),
  remember: z.boolean({ error: 'remember must be true or false' }).optional(),
});

const DEFAULT_PAGE = 50;
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
export function chatRoutes(stores: { workspaces: WorkspaceStore; config: ConfigStore }, engine: ChatEngine): Router {
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
    res.json({ sessions: (await sessions.list(wid)).map(summary) });
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
    await sessions.require(wid, sid);
    if (input.model) await requireModel(stores.config, input.model);
    const meta = await sessions.update(wid, sid, (m) => {
      if (input.title !== undefined) {
        m.title = input.title;
        m.auto_title = false;
      }
      if (input.model !== undefined) m.model_override = input.model;
      if (input.thinking !== undefined) m.thinking_override = input.thinking;
    });
    res.json(summary(meta));
  });
  router.delete(`${base}/:sid`, async (req, res) => {
    const wid = await workspace(req.params.id);
    const sid = checkSessionId(req.params.sid);
    if (engine.activeTurn(wid, sid))
      throw new ApiError('turn_in_progress', 'A turn is running in this session; cancel it before deleting.');
    const trashed = await sessions.delete(wid, sid);
    res.json({ deleted: sid, trashed_to: trashed });
  });
  router.post(`${base}/:sid/messages`, async (req, res) => {
    const wid = await workspace(req.params.id);
    const sid = checkSessionId(req.params.sid);
    const { content, parent_id } = parseBody(MessageSchema, req.body);
    res.status(202).json(await engine.startTurn(wid, sid, content, parent_id));
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
    res.json({ hits: await searchSessions(stores, sessions, q) });
  });
  return router;
}
