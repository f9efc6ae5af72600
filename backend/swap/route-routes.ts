import { Router } from 'express';
import type { SourceRegistry } from './liquidity-source.js';
import { GasSimulator } from './onchain/gas-simulation.js';
import { buildRoute } from './route-builder.js';
import { parseRouteRequest } from './route-request.js';

/** `POST /api/v1/route/build` (spec 4). */
export function routeBuildRoutes(deps: { swapConfig: string; env: NodeJS.ProcessEnv; registry: SourceRegistry }): Router {
  const router = Router();
  // One simulator per listener: it caches each token's storage slots and which nodes refuse overrides.
  const gasSimulator = new GasSimulator();
  router.post('/api/v1/route/build', async (req, res) => {
    const request = parseRouteRequest(req.body);
    // A client that hangs up stops the upstream call too.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    res.json(await buildRoute(request, { ...deps, gasSimulator }, abort.signal));
  });
  return router;
}
