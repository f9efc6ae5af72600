import { Router } from 'express';
import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import type { Logger } from '../log/logger.js';
import { API_VERSION, VERSION } from '../version.js';

/** What a client needs to recognise this backend and find its swap listener (no secret). */
export interface PublicInfo {
  node_id: string;
  /** The swap route builder's URL once it listens, else null (`-swap-port off`). */
  swap_url: string | null;
}

export function publicSystemRoutes(info: () => PublicInfo = () => ({ node_id: '', swap_url: null })): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/api/version', (_req, res) => {
    res.json({ version: VERSION, api: API_VERSION, node: process.versions.node, ...info() });
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
