import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Router, type Request } from 'express';
import { ATTACHMENT_LIMITS } from '../attachments/attachment-api.js';
import { cleanFileName, tooLarge, type AttachmentStore } from '../attachments/attachment-store.js';
import { checkSessionId } from '../chat/session-store.js';
import { ApiError } from '../http/errors.js';
import { checkWorkspaceId } from './workspace-routes.js';

export interface AttachmentRouteDeps {
  attachments: AttachmentStore;
  /** Throws not_found unless the workspace and its session exist. */
  requireSession(workspaceId: string, sessionId: string): Promise<unknown>;
}

function fileNameHeader(req: Request): string {
  const raw = req.get('x-filename');
  if (raw === undefined || raw.trim() === '') {
    throw new ApiError('validation_failed', 'X-Filename must name the file (URL-encoded).', { field: 'X-Filename' });
  }
  try {
    return cleanFileName(decodeURIComponent(raw));
  } catch {
    throw new ApiError('validation_failed', 'X-Filename must be URL-encoded UTF-8.', { field: 'X-Filename' });
  }
}

const DRAIN_LIMIT = 2 * ATTACHMENT_LIMITS.maxBytes;

/** Reads and drops the rest of a body; false (and the request paused) past `limit` bytes. */
function drain(req: Request, limit: number): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = 0;
    const done = (ok: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onEnd);
      if (!ok) req.pause();
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) done(false);
    };
    const onEnd = () => done(true);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onEnd);
    req.resume();
  });
}

/** `attachment; filename="ascii"; filename*=UTF-8''…` (RFC 6266), so any name survives the header. */
function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Upload and download of a session's attachments (DESIGN 8). */
export function attachmentRoutes(deps: AttachmentRouteDeps): Router {
  const router = Router();
  const base = '/api/workspaces/:id/sessions/:sid/attachments';
  const session = async (req: Request) => {
    const wid = checkWorkspaceId(String(req.params.id));
    const sid = checkSessionId(String(req.params.sid));
    await deps.requireSession(wid, sid);
    return { wid, sid };
  };

  router.post(base, async (req, res) => {
    try {
      // Refused before a byte is stored when the declared length is already over the limit.
      if (Number(req.get('content-length') ?? NaN) > ATTACHMENT_LIMITS.maxBytes) throw tooLarge();
      const name = fileNameHeader(req);
      const { wid, sid } = await session(req);
      // destroyOnReturn: false keeps the request readable after a refusal mid-body, so it can be drained.
      res.status(201).json(await deps.attachments.save(wid, sid, name, req.iterator({ destroyOnReturn: false })));
    } catch (err) {
      // The client gets to see the answer only once it has sent its body: the rest is read and
      // dropped, up to a bound past which the connection is closed instead.
      if (!req.complete && !(await drain(req, DRAIN_LIMIT))) res.set('Connection', 'close');
      throw err;
    }
  });

  router.get(`${base}/:aid`, async (req, res) => {
    const { wid, sid } = await session(req);
    const found = await deps.attachments.get(wid, sid, String(req.params.aid));
    if (!found) throw new ApiError('not_found', `No attachment with id ${String(req.params.aid).slice(0, 80)} in this session.`);
    const { meta, file } = found;
    const image = meta.kind === 'image';
    res.set({
      'Content-Type': meta.kind === 'text' ? 'text/plain; charset=utf-8' : meta.mime,
      'Content-Length': String(meta.size),
      // Never sniffed into HTML, never run as a document even if opened directly, never inline unless an image.
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': 'sandbox',
      'Content-Disposition': disposition(image ? 'inline' : 'attachment', meta.name),
      'Cache-Control': 'private, max-age=31536000, immutable',
    });
    await pipeline(createReadStream(file), res);
  });
  return router;
}
