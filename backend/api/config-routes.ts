import { Router } from 'express';
import type { ConfigStore } from '../config/config-store.js';

/** Provider configuration (read side; the write side lives beside it). */
export function providerReadRoutes(config: ConfigStore): Router {
  const router = Router();
  router.get('/api/config/providers', (_req, res) => {
    res.json(config.providersResponse());
  });
  return router;
}
