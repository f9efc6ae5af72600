import type { RequestHandler } from 'express';
import type { Logger } from './logger.js';

const SLOW_MS = 1000;

/** `EXPRESS_MODE=release` (or NODE_ENV=production) keeps only errors and slow requests. */
export function isReleaseMode(env: NodeJS.ProcessEnv): boolean {
  return env.EXPRESS_MODE === 'release' || env.NODE_ENV === 'production';
}

/**
 * One line per request: method, path (query values that carry secrets masked by the logger),
 * status and duration. Headers are never logged.
 */
export function accessLog(logger: Logger, label: string, release: boolean): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (release && res.statusCode < 500 && ms < SLOW_MS) return;
      const line = `${label} ${req.method} ${req.originalUrl} ${res.statusCode} ${ms.toFixed(1)}ms`;
      if (res.statusCode >= 500) logger.error(line);
      else logger.info(line);
    });
    next();
  };
}
