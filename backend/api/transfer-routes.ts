import { randomBytes } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router, type Request, type Response } from 'express';
import type { ChatEngine } from '../chat/chat-engine.js';
import { ImportError } from '../chat/import-kit.js';
import { exportJson, exportMarkdown, type ExportedAttachment } from '../chat/session-export.js';
import { attachmentRefs } from '../chat/attachment-refs.js';
import type { StoredAttachment } from '../attachments/attachment-store.js';
import { importSessions } from '../chat/session-import.js';
import { checkSessionId } from '../chat/session-store.js';
import { buildTree } from '../chat/session-tree.js';
import type { WorkspaceStore } from '../workspaces/workspace-store.js';
import { TEMP_PREFIX } from '../data/atomic-write.js';
import { ApiError } from '../http/errors.js';
import { checkWorkspaceId } from './workspace-routes.js';

/** A ChatGPT export of several years runs to hundreds of MB; past this it is refused before it fills the disk. */
export const MAX_IMPORT_BYTES = 1024 * 1024 * 1024;
const IMPORT_PATH = /^\/api\/workspaces\/[^/]+\/sessions\/import$/;

/** The import upload is streamed to disk by its route, not parsed by the 1 MiB JSON body parser. */
export function isImportUpload(req: Request): boolean {
  return req.method === 'POST' && IMPORT_PATH.test(req.path);
}

async function receive(req: Request, file: string): Promise<void> {
  let bytes = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > MAX_IMPORT_BYTES) done(new ApiError('payload_too_large', 'An import file may be at most 1 GiB.'));
      else done(null, chunk);
    },
  });
  await pipeline(req, limit, createWriteStream(file, { mode: 0o600, flags: 'wx' }));
}

/**
 * The JSON export with its attachments' bytes, written one attachment at a time so a session with
 * many large files is never held in memory whole. A file that has vanished is left out.
 */
async function sendJsonExport(
  res: Response,
  doc: ReturnType<typeof exportJson>,
  ids: Iterable<string>,
  find: (id: string) => Promise<{ meta: StoredAttachment; file: string } | undefined>,
): Promise<void> {
  const head = JSON.stringify({ ...doc, attachments: [] });
  res.type('application/json; charset=utf-8');
  // A client that goes away mid-download ends the loop instead of leaving it waiting for 'drain'.
  const write = (chunk: string): Promise<boolean> =>
    res.write(chunk)
      ? Promise.resolve(true)
      : new Promise((resolve) => {
          const done = (ok: boolean) => () => {
            res.off('drain', drained);
            res.off('close', closed);
            resolve(ok);
          };
          const drained = done(true);
          const closed = done(false);
          res.once('drain', drained);
          res.once('close', closed);
        });
  if (!(await write(`${head.slice(0, -'[]}'.length)}[`))) return;
  let first = true;
  for (const id of ids) {
    if (res.destroyed) return;
    const found = await find(id);
    if (!found) continue;
    const data = await fs.readFile(found.file);
    const { name, mime, sha256 } = found.meta;
    const entry: ExportedAttachment = { id, name, mime, sha256, data_base64: data.toString('base64') };
    if (!(await write(`${first ? '' : ','}${JSON.stringify(entry)}`))) return;
    first = false;
  }
  res.end(']}');
}

/** Export of a session (Markdown or JSON) and import of sessions (DESIGN 7, Export and import). */
export function transferRoutes(stores: { workspaces: WorkspaceStore }, engine: ChatEngine): Router {
  const router = Router();
  const { sessions } = engine;
  const workspace = async (raw: string) => {
    const id = checkWorkspaceId(raw);
    if (!(await stores.workspaces.get(id))) throw new ApiError('not_found', `No workspace with id ${id}.`);
    return id;
  };

  router.get('/api/workspaces/:id/sessions/:sid/export', async (req, res) => {
    const wid = await workspace(req.params.id);
    const sid = checkSessionId(req.params.sid);
    const meta = await sessions.require(wid, sid);
    const format = req.query.format ?? 'json';
    if (format !== 'md' && format !== 'json')
      throw new ApiError('validation_failed', 'format must be "md" or "json".', { field: 'format' });
    const tree = buildTree((await sessions.readLog(wid, sid)).items);
    const name = `${sid}.${format}`;
    res.set('Content-Disposition', `attachment; filename="${name}"`);
    if (format === 'md') res.type('text/markdown; charset=utf-8').send(exportMarkdown(meta, tree));
    else await sendJsonExport(res, exportJson(meta, tree), attachmentRefs(tree.items).keys(), (id) => engine.attachments.get(wid, sid, id));
  });

  router.post('/api/workspaces/:id/sessions/import', async (req, res) => {
    const wid = await workspace(req.params.id);
    const dryRun = req.query.dry_run === '1' || req.query.dry_run === 'true';
    const dir = path.dirname(sessions.dir(wid, 'x'));
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `${TEMP_PREFIX}upload-${randomBytes(6).toString('hex')}.json`);
    try {
      await receive(req, file);
      const result = await importSessions(sessions, wid, file, dryRun);
      res.status(dryRun ? 200 : 201).json(result);
    } catch (err) {
      if (err instanceof ImportError) throw new ApiError('validation_failed', err.message, err.path ? { field: err.path } : {});
      throw err;
    } finally {
      await fs.rm(file, { force: true });
    }
  });
  return router;
}
