import { Router } from 'express';
import { z } from 'zod';
import type { SkillStore } from '../skills/skill-store.js';
import { parseBody, validationError } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import { SkillInputSchema, SkillNameSchema } from '../skills/skill-api.js';
import type { WsHub } from '../ws/ws-hub.js';

const SkillCreateSchema = SkillInputSchema.extend({ name: z.string({ error: 'name is required' }) });

/** Skill names become folder names: `..`, separators, absolute paths and NUL are a 400. */
function checkName(name: string): string {
  const parsed = SkillNameSchema.safeParse(name);
  if (!parsed.success) throw validationError(parsed.error, ['name']);
  return name;
}

/** skills/<name>/SKILL.md: list, get, create, put (create or replace; the old text to trash), delete (to trash). */
export function skillRoutes(stores: { skills: SkillStore }, ws: WsHub): Router {
  const router = Router();
  router.get('/api/skills', async (_req, res) => {
    res.json({ skills: await stores.skills.list() });
  });
  router.get('/api/skills/:name', async (req, res) => {
    const skill = await stores.skills.get(checkName(req.params.name));
    if (!skill) throw new ApiError('not_found', `No skill named ${req.params.name}.`);
    res.json(skill);
  });
  // Create only: POST, or PUT with `If-None-Match: *`; a name in use is a 409 `already_exists`.
  router.post('/api/skills', async (req, res) => {
    const { name: rawName, content } = parseBody(SkillCreateSchema, req.body);
    const name = checkName(rawName);
    const { skill } = await stores.skills.put(name, content, { createOnly: true });
    ws.configChanged('skills', name);
    res.status(201).json(skill);
  });
  router.put('/api/skills/:name', async (req, res) => {
    const name = checkName(req.params.name);
    const { content } = parseBody(SkillInputSchema, req.body);
    const createOnly = req.get('if-none-match')?.trim() === '*';
    const { created, skill, trashed_to } = await stores.skills.put(name, content, { createOnly });
    ws.configChanged('skills', name);
    res.status(created ? 201 : 200).json({ ...skill, trashed_to });
  });
  router.delete('/api/skills/:name', async (req, res) => {
    const name = checkName(req.params.name);
    await stores.skills.delete(name);
    ws.configChanged('skills', name);
    res.status(204).end();
  });
  return router;
}
