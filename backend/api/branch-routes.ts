import { Router } from 'express';
import { z } from 'zod';
import type { ChatEngine } from '../chat/chat-engine.js';
import { requireModel } from '../chat/model-catalog.js';
import { forkSession } from '../chat/session-fork.js';
import { siblingMessages } from '../chat/branch-page.js';
import { IndexTree } from '../chat/index-tree.js';
import { checkSessionId, summary } from '../chat/session-store.js';
import type { ConfigStore } from '../config/config-store.js';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { parseBody } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import { checkWorkspaceId } from './workspace-routes.js';

const DEFAULT_PAGE = 50;
const MODEL_REF = /^[^:\s]+:\S+$/;
const messageId = (field: string) =>
  z
    .string({ error: `${field} must be a message id` })
    .min(1, `${field} must not be empty`)
    .max(200, `${field} is too long`);

/** `PATCH …/sessions/:sid`: a title, and the per-session model and thinking overrides (null clears). */
export const SessionPatchSchema = z
  .object({
    title: z
      .string({ error: 'title must be a string' })
      .trim()
      .min(1, 'title must not be empty')
      .max(200, 'title must be at most 200 characters'),
    model: z
      .string({ error: 'model must be "<providerId>:<modelId>" or null' })
      .regex(MODEL_REF, 'model must have the form <providerId>:<modelId>')
      .nullable(),
    web_search: z.boolean({ error: 'web_search must be true, false or null' }).nullable(),
    thinking: z
      .object(
        {
          enabled: z.boolean({ error: 'enabled must be true or false' }),
          budget: z
            .number({ error: 'budget must be an integer between 1024 and 128000' })
            .int('budget must be an integer between 1024 and 128000')
            .min(1024, 'budget must be between 1024 and 128000')
            .max(128_000, 'budget must be between 1024 and 128000')
            .optional(),
        },
        { error: 'thinking must be {enabled, budget?} or null' },
      )
      .strict()
      .nullable(),
  })
  .partial()
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'send at least one of title, model, thinking');

const RegenerateSchema = z.object({ model: z.string({ error: 'model must be "<providerId>:<modelId>"' }).optional() }).strict();
const ActiveSchema = z.object({ message_id: messageId('message_id') });
const ForkSchema = z.object({ message_id: messageId('message_id') });

/** Branches of a session (DESIGN 7): siblings, regenerate, the shown branch, fork. */
export function branchRoutes(stores: { workspaces: WorkspaceStore; config: ConfigStore }, engine: ChatEngine): Router {
  const router = Router();
  const { sessions } = engine;
  const ids = async (params: Record<string, string>) => {
    const wid = checkWorkspaceId(params.id);
    if (!(await stores.workspaces.get(wid))) throw new ApiError('not_found', `No workspace with id ${wid}.`);
    const sid = checkSessionId(params.sid);
    await sessions.require(wid, sid);
    return { wid, sid };
  };
  const base = '/api/workspaces/:id/sessions/:sid';

  router.get(`${base}/messages/:mid/siblings`, async (req, res) => {
    const { wid, sid } = await ids(req.params);
    const messages = await siblingMessages(await sessions.index(wid, sid), req.params.mid);
    if (!messages) throw new ApiError('not_found', `No message ${req.params.mid.slice(0, 80)} in this session.`);
    res.json({ messages });
  });
  router.post(`${base}/messages/:mid/regenerate`, async (req, res) => {
    const { wid, sid } = await ids(req.params);
    const { model } = parseBody(RegenerateSchema, req.body ?? {});
    if (model) await requireModel(stores.config, model);
    const { turn_id, message_id } = await engine.regenerate(wid, sid, req.params.mid, model);
    res.status(202).json({ turn_id, user_message_id: message_id });
  });
  router.put(`${base}/active`, async (req, res) => {
    const { wid, sid } = await ids(req.params);
    const { message_id } = parseBody(ActiveSchema, req.body);
    if (engine.activeTurn(wid, sid))
      throw new ApiError('turn_in_progress', 'A turn is running in this session; switch branches once it ends.');
    if ((await new IndexTree(await sessions.index(wid, sid)).message(message_id)) < 0)
      throw new ApiError('validation_failed', `message_id must be the id of a message in this session (no ${message_id.slice(0, 80)}).`, {
        field: 'message_id',
      });
    await sessions.update(wid, sid, (m) => {
      m.active_leaf = message_id;
    });
    res.json(await engine.sessionView(wid, sid, undefined, DEFAULT_PAGE));
  });
  router.post(`${base}/fork`, async (req, res) => {
    const { wid, sid } = await ids(req.params);
    const { message_id } = parseBody(ForkSchema, req.body);
    res.status(201).json(summary(await forkSession(sessions, engine.attachments, wid, sid, message_id)));
  });
  return router;
}
