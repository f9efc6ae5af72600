import path from 'node:path';
import express, { type Express, type RequestHandler } from 'express';
import { errorMiddleware, notFoundHandler } from '../http/errors.js';
import { hostOriginGuard, limitJsonDepth, requireJsonBody, type OriginPolicy } from '../http/guards.js';
import { accessLog } from '../log/access-log.js';
import type { Logger } from '../log/logger.js';
import type { DataPaths } from '../data/data-dir.js';
import type { SourceRegistry } from './liquidity-source.js';

export interface SwapAppOptions {
  logger: Logger;
  paths: DataPaths;
  env: NodeJS.ProcessEnv;
  policy: OriginPolicy;
  release: boolean;
  /** Liquidity sources by `liquidity:` name (default: the aggregator client and the on-chain source). */
  registry?: SourceRegistry;
}

/**
 * The swap route builder's own express app, served on 127.0.0.1:<-swap-port>. Same Host/Origin,
 * JSON-only and body-size defences as the assistant API; no credential (loopback only).
 */
export function createSwapApp(options: SwapAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(accessLog(options.logger, 'swap', options.release));
  app.use(hostOriginGuard(options.policy));
  app.use(requireJsonBody);
  app.use(express.json({ limit: '1mb' }));
  app.use(limitJsonDepth);
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // The route builder pulls in ethers (about 150 ms and 20 MB at start): load it on first use.
  let routes: Promise<RequestHandler> | undefined;
  const loadRoutes = async (): Promise<RequestHandler> => {
    const [{ AggregatorSource }, { OnchainSource }, { routeBuildRoutes }] = await Promise.all([
      import('./aggregator/aggregator-source.js'),
      import('./onchain/onchain-source.js'),
      import('./route-routes.js'),
    ]);
    const registry: SourceRegistry = options.registry ?? {
      aggregator: new AggregatorSource(),
      onchain: new OnchainSource((line) => options.logger.info(line), path.dirname(options.paths.swapConfig)),
    };
    return routeBuildRoutes({ swapConfig: options.paths.swapConfig, env: options.env, registry });
  };
  app.use((req, res, next) => {
    routes ??= loadRoutes();
    routes.then((router) => router(req, res, next), next);
  });
  app.use(notFoundHandler);
  app.use(errorMiddleware((err) => options.logger.error(`error: swap: ${(err as Error)?.stack ?? String(err)}`)));
  return app;
}
