import { Router } from 'express';
import { listModels } from '../chat/model-catalog.js';
import type { ConfigStore } from '../config/config-store.js';

/** `GET /api/models` (DESIGN 7): every model of every provider, for the pickers. */
export function modelRoutes(config: ConfigStore): Router {
  const router = Router();
  router.get('/api/models', async (_req, res) => {
    res.json({ models: await listModels(config) });
  });
  return router;
}
