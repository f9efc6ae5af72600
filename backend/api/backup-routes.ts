import { Router } from 'express';
import { z } from 'zod';
import type { BackupListResponse, RestoreResponse } from '../backup/backup-api.js';
import type { BackupStore } from '../backup/backup-store.js';
import { SnapshotInvalidError } from '../backup/snapshot-errors.js';
import { parseBody } from '../http/validation.js';
import { ApiError } from '../http/errors.js';
import type { Logger } from '../log/logger.js';

const CreateSchema = z.object({
  kind: z.enum(['manual', 'pre-update'], { error: 'kind must be "manual" or "pre-update"' }).default('manual'),
});

export interface BackupRouteOptions {
  backups: BackupStore;
  logger: Logger;
  /**
   * Stops the service, runs `apply` (puts the restored files in place) and starts it again on the
   * restored data. Absent when this service cannot restart itself (then restores are refused).
   */
  restart?: (apply: () => Promise<void>) => void;
}

/** `/api/backups`: list, take (manual or before an update), delete, restore (the service restarts). */
export function backupRoutes({ backups, logger, restart }: BackupRouteOptions): Router {
  const router = Router();
  let restoring = false;
  const existing = async (name: string): Promise<string> => {
    const file = await backups.find(name);
    if (!file) throw new ApiError('not_found', `No backup named ${name}.`, { field: 'name' });
    return file;
  };

  router.get('/api/backups', async (_req, res) => {
    const body: BackupListResponse = { backups: await backups.list(), dir: backups.dir };
    res.json(body);
  });
  router.post('/api/backups', async (req, res) => {
    const { kind } = parseBody(CreateSchema, req.body ?? {});
    const info = await backups.create(kind);
    logger.info(`backup written: backups/${info.name} (${info.size_bytes} bytes)`);
    res.status(201).json(info);
  });
  router.delete('/api/backups/:name', async (req, res) => {
    await existing(req.params.name);
    await backups.remove(req.params.name);
    res.status(204).end();
  });
  router.post('/api/backups/:name/restore', async (req, res) => {
    const file = await existing(req.params.name);
    if (!restart) throw new ApiError('conflict', 'This service cannot restart itself: stop it and run `restore FILE`.');
    if (restoring) throw new ApiError('conflict', 'A restore is already in progress.');
    restoring = true;
    try {
      // Verified before anything changes; a damaged snapshot leaves the data directory as it was.
      const prepared = await backups.prepare(file).catch((err: unknown) => {
        if (err instanceof SnapshotInvalidError) throw new ApiError('backup_invalid', `${err.message}; nothing was changed.`);
        throw err;
      });
      if (prepared.foreign) {
        await prepared.discard();
        throw new ApiError(
          'conflict',
          `This snapshot was taken on another node (${prepared.manifest.node_id ?? 'unknown'}; this one is ${prepared.nodeId ?? 'not set up yet'}). ` +
            'Restore it with the `restore FILE -foreign` sub-command while the service is stopped; nothing was changed.',
        );
      }
      let safety;
      try {
        safety = await backups.create('pre-restore');
      } catch (err) {
        await prepared.discard();
        throw err;
      }
      logger.info(`restoring backups/${req.params.name}; the state before is in backups/${safety.name}; restarting`);
      const body: RestoreResponse = { restoring: true, safety_backup: safety };
      res.on('finish', () => restart(prepared.apply));
      res.status(202).json(body);
    } catch (err) {
      restoring = false;
      throw err;
    }
  });
  return router;
}
