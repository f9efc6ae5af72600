import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Router, type Request, type Response } from 'express';
import { ApiError } from '../http/errors.js';
import { parseBody } from '../http/validation.js';
import { cleanFileName } from '../attachments/attachment-store.js';
import { MAX_FILE_BYTES, tooLarge } from '../knowledge/kb-files.js';
import { AddSourceSchema, CreateKbSchema, PatchKbSchema, SearchSchema } from '../knowledge/knowledge-schemas.js';
import type { KnowledgeService } from '../knowledge/knowledge-service.js';
import type { WsHub } from '../ws/ws-hub.js';

// The knowledge routes (DESIGN 13) plus two reads for the citation viewer (docs/knowledge.md):
// `GET …/sources/:sid/chunks?from=&to=` or `?chunk_id=` (a SourceSpan) and `GET …/sources/:sid/file` (the bytes).

const MAX_JSON_SOURCE = 11 * 1024 * 1024;

function fileName(req: Request): string {
  const raw = req.get('x-filename') ?? '';
  try {
    return cleanFileName(decodeURIComponent(raw));
  } catch {
    throw new ApiError('validation_failed', 'X-Filename must be URL-encoded UTF-8.', { field: 'X-Filename' });
  }
}

/** The JSON body of a source (this path skips the global JSON parser: files come raw). */
async function jsonBody(req: Request): Promise<unknown> {
  const type = (req.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(
      'unsupported_media_type',
      'Send a file as the raw body with X-Filename, or a JSON body {kind: "folder" | "url" | "note", …}.',
    );
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_JSON_SOURCE) throw new ApiError('payload_too_large', 'A JSON source body may be at most 11 MiB.');
    parts.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new ApiError('invalid_json');
  }
}

function spanParam(req: Request, name: 'from' | 'to'): number | undefined {
  const raw = req.query[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isInteger(n) || n < 0)
    throw new ApiError('validation_failed', `${name} must be a non-negative integer.`, { field: name });
  return n;
}

function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * `isOwner` tells whether the calling device is an owner (a folder source reads the backend's disk).
 * Every change to the list of KBs or of a KB's sources is announced as `config.changed {resource:
 * "knowledge", id}`, so other clients' lists follow; a source's state moves by `knowledge.progress`.
 */
export function knowledgeRoutes(
  knowledge: KnowledgeService,
  isOwner: (res: Response) => boolean,
  ws: Pick<WsHub, 'configChanged'>,
): Router {
  const router = Router();
  const kb = (req: Request) => String(req.params.kb);
  const sid = (req: Request) => String(req.params.sid);
  const changed = (id: string) => ws.configChanged('knowledge', id);

  router.get('/api/knowledge', async (_req, res) => {
    res.json({ knowledge_bases: await knowledge.list() });
  });
  router.post('/api/knowledge', async (req, res) => {
    const created = await knowledge.create(parseBody(CreateKbSchema, req.body));
    changed(created.id);
    res.status(201).json(created);
  });
  router.get('/api/knowledge/:kb', async (req, res) => {
    res.json(await knowledge.detail(kb(req)));
  });
  router.patch('/api/knowledge/:kb', async (req, res) => {
    const detail = await knowledge.patch(kb(req), parseBody(PatchKbSchema, req.body));
    changed(detail.id);
    res.json(detail);
  });
  router.delete('/api/knowledge/:kb', async (req, res) => {
    await knowledge.remove(kb(req));
    changed(kb(req));
    res.status(204).end();
  });

  router.get('/api/knowledge/:kb/sources', async (req, res) => {
    res.json({ sources: await knowledge.sources(kb(req)) });
  });
  router.post('/api/knowledge/:kb/sources', async (req, res) => {
    if (req.get('x-filename') === undefined) {
      const input = parseBody(AddSourceSchema, await jsonBody(req));
      if (input.kind === 'folder' && !isOwner(res))
        throw new ApiError('owner_required', 'Only an owner device can add a folder: it reads files on the backend machine.');
      const source = await knowledge.add(kb(req), input);
      changed(kb(req));
      res.status(201).json(source);
      return;
    }
    if (Number(req.get('content-length') ?? NaN) > MAX_FILE_BYTES) {
      res.set('Connection', 'close');
      throw tooLarge();
    }
    const name = fileName(req);
    if (name === 'attachment' && !req.get('x-filename')?.trim())
      throw new ApiError('validation_failed', 'X-Filename must name the file (URL-encoded).', { field: 'X-Filename' });
    try {
      const source = await knowledge.addFile(kb(req), name, req.iterator({ destroyOnReturn: false }));
      changed(kb(req));
      res.status(201).json(source);
    } catch (err) {
      if (!req.complete) res.set('Connection', 'close');
      throw err;
    }
  });
  router.delete('/api/knowledge/:kb/sources/:sid', async (req, res) => {
    await knowledge.removeSource(kb(req), sid(req));
    changed(kb(req));
    res.status(204).end();
  });
  for (const action of ['retry', 'pause', 'resume'] as const) {
    router.post(`/api/knowledge/:kb/sources/:sid/${action}`, async (req, res) => {
      res.json(await knowledge.control(kb(req), sid(req), action));
    });
  }
  router.get('/api/knowledge/:kb/sources/:sid/chunks', async (req, res) => {
    const cited = req.query.chunk_id;
    if (cited !== undefined) {
      if (typeof cited !== 'string' || !/^[A-Za-z0-9_-]{1,80}$/.test(cited))
        throw new ApiError('validation_failed', 'chunk_id must be a chunk id as a citation stores it (letters, digits, _ and -).', {
          field: 'chunk_id',
        });
      res.json(await knowledge.passage(kb(req), sid(req), cited));
      return;
    }
    res.json(await knowledge.read(kb(req), sid(req), { from: spanParam(req, 'from'), to: spanParam(req, 'to') }));
  });
  router.get('/api/knowledge/:kb/sources/:sid/file', async (req, res) => {
    const { file, mime, name } = await knowledge.file(kb(req), sid(req));
    res.set({
      'Content-Type': mime.startsWith('text/') ? `${mime}; charset=utf-8` : mime,
      'X-Content-Type-Options': 'nosniff',
      // An HTML source never runs as a page of this origin.
      'Content-Security-Policy': 'sandbox',
      'Content-Disposition': disposition(name),
    });
    await pipeline(createReadStream(file), res);
  });

  router.post('/api/knowledge/:kb/search', async (req, res) => {
    const body = parseBody(SearchSchema, req.body);
    res.json(await knowledge.searchOne(kb(req), body.query, body.top_k, body.mode));
  });
  return router;
}
