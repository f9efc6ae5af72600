import { Router } from 'express';
import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import type { Logger } from '../log/logger.js';
import { API_VERSION, VERSION } from '../version.js';

export function publicSystemRoutes(): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/api/version', (_req, res) => {
    res.json({ version: VERSION, api: API_VERSION, node: process.versions.node });
  });
  return router;
}

const LogsQuery = z.object({
  since: z.coerce
    .number({ error: 'since must be a non-negative integer' })
    .int('since must be a non-negative integer')
    .nonnegative('since must be a non-negative integer')
    .default(0),
});

/** `/api/logs?since=N`: lines of this process after sequence number N. */
export function logRoutes(logger: Logger): Router {
  const router = Router();
  router.get('/api/logs', (req, res) => {
    const parsed = LogsQuery.safeParse(req.query);
    if (!parsed.success) throw new ApiError('validation_failed', parsed.error.issues[0].message, { field: 'since' });
    res.json({ lines: logger.since(parsed.data.since), last_seq: logger.lastSeq });
  });
  return router;
}
