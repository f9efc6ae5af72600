import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { TEMP_PREFIX, readIfExists, syncDirectory, writeFileAtomic } from '../data/atomic-write.js';
import type { DataPaths } from '../data/data-dir.js';
import { ApiError } from '../http/errors.js';
import { ATTACHMENT_LIMITS, type AttachmentView } from './attachment-api.js';
import { fileSource } from './byte-source.js';
import { detectAttachment } from './detect-type.js';

/** What `<sha256>.json` beside the bytes holds. */
export interface StoredAttachment extends AttachmentView {
  created_at: string;
}

const ATTACHMENT_ID = /^[0-9a-f]{64}$/;
/** An upload in flight writes its temporary file at least this often; older ones were left by a crash. */
const STALE_UPLOAD_MS = 10 * 60_000;

export function isAttachmentId(id: string): boolean {
  return ATTACHMENT_ID.test(id);
}

/**
 * The name to show and to offer on download: the last path segment only (a name is never a path),
 * no control characters, at most 255 characters.
 */
export function cleanFileName(raw: string): string {
  const last = raw.split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const cleaned = last.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  const name = cleaned === '.' || cleaned === '..' ? '' : cleaned;
  return Array.from(name).slice(0, 255).join('') || 'attachment';
}

/**
 * `workspaces/<id>/sessions/<sid>/attachments/<sha256>` (0600) and `<sha256>.json` beside it.
 * Bytes stream to a temporary file (hashed on the way), are fsynced, checked, then renamed: a crash
 * at any instant leaves no partial file under a final name.
 */
export class AttachmentStore {
  constructor(private readonly paths: DataPaths) {}

  dir(workspaceId: string, sessionId: string): string {
    return path.join(this.paths.workspaceSessions(workspaceId), sessionId, 'attachments');
  }

  save(
    workspaceId: string,
    sessionId: string,
    name: string,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  ): Promise<AttachmentView> {
    return saveAttachment(this.dir(workspaceId, sessionId), name, body);
  }

  /** The metadata and the path of the bytes, or undefined when there is no such attachment. */
  async get(workspaceId: string, sessionId: string, id: string): Promise<{ meta: StoredAttachment; file: string } | undefined> {
    if (!isAttachmentId(id)) return undefined;
    const file = path.join(this.dir(workspaceId, sessionId), id);
    const text = await readIfExists(`${file}.json`);
    if (text === undefined || !(await exists(file))) return undefined;
    try {
      return { meta: JSON.parse(text) as StoredAttachment, file };
    } catch {
      return undefined;
    }
  }

  /** Every attachment of a session (for export: DESIGN 7 lists them with their bytes). */
  async list(workspaceId: string, sessionId: string): Promise<StoredAttachment[]> {
    const names = await fs.readdir(this.dir(workspaceId, sessionId)).catch(() => [] as string[]);
    const found = await Promise.all(names.filter(isAttachmentId).map((id) => this.get(workspaceId, sessionId, id)));
    return found.flatMap((f) => (f ? [f.meta] : []));
  }

  /**
   * Copies attachments of a session into an attachments folder (a fork's session while it is staged:
   * DESIGN 7). Each file is copied to a temporary name and renamed, so the target never holds a
   * partial file; ids stay the same (content-addressed).
   */
  async copyInto(workspaceId: string, fromSession: string, target: string, ids: Iterable<string>): Promise<string[]> {
    await fs.mkdir(target, { recursive: true, mode: 0o700 });
    const copied: string[] = [];
    for (const id of new Set(ids)) {
      const found = await this.get(workspaceId, fromSession, id);
      if (!found) continue;
      const file = path.join(target, id);
      if (!(await exists(file))) {
        const temp = path.join(target, `${TEMP_PREFIX}copy-${randomBytes(8).toString('hex')}`);
        await fs.copyFile(found.file, temp);
        await fs.chmod(temp, 0o600);
        await fs.rename(temp, file);
      }
      if ((await readIfExists(`${file}.json`)) === undefined) {
        await writeFileAtomic(`${file}.json`, `${JSON.stringify(found.meta, null, 2)}\n`, { mode: 0o600 });
      }
      copied.push(id);
    }
    await syncDirectory(target);
    return copied;
  }

  /** The bytes, for a request to a provider. */
  async read(workspaceId: string, sessionId: string, id: string): Promise<{ meta: StoredAttachment; bytes: Buffer }> {
    const found = await this.get(workspaceId, sessionId, id);
    if (!found) throw new ApiError('not_found', `No attachment with id ${id.slice(0, 80)} in this session.`);
    return { meta: found.meta, bytes: await fs.readFile(found.file) };
  }
}

/**
 * Streams `body` into `dir` (a session's attachments folder, or one being staged) under its SHA-256:
 * hashed on the way, fsynced, type-checked from the bytes, renamed, metadata beside it.
 */
export async function saveAttachment(
  dir: string,
  name: string,
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<AttachmentView> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await removeStaleUploads(dir);
  const temp = path.join(dir, `${TEMP_PREFIX}upload-${randomBytes(8).toString('hex')}`);
  const handle = await fs.open(temp, 'wx+', 0o600); // read back by the type check
  let kept = false;
  try {
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > ATTACHMENT_LIMITS.maxBytes) throw tooLarge();
      hash.update(chunk);
      await handle.write(chunk);
    }
    await handle.sync();
    const detected = await detectAttachment(fileSource(handle, size));
    if (!detected.ok) throw new ApiError(detected.code, detected.message);
    await handle.close();
    const sha256 = hash.digest('hex');
    const view: AttachmentView = { id: sha256, name, mime: detected.mime, size, sha256, kind: detected.kind };
    for (const key of ['width', 'height', 'pages'] as const) if (detected[key] !== undefined) view[key] = detected[key];
    const file = path.join(dir, sha256);
    // Content-addressed: the same bytes uploaded again are already there.
    if (await exists(file)) await fs.rm(temp, { force: true });
    else {
      await fs.rename(temp, file);
      await syncDirectory(dir);
    }
    kept = true;
    const metaFile = `${file}.json`;
    if ((await readIfExists(metaFile)) === undefined) {
      const stored: StoredAttachment = { ...view, created_at: new Date().toISOString() };
      await writeFileAtomic(metaFile, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    }
    return view;
  } finally {
    if (!kept) {
      await handle.close().catch(() => undefined);
      await fs.rm(temp, { force: true });
    }
  }
}

export function tooLarge(): ApiError {
  return new ApiError('attachment_too_large', `Attachments may be at most ${ATTACHMENT_LIMITS.maxBytes / (1024 * 1024)} MiB.`);
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Temporary files of uploads a crash cut off; those of uploads still running are recent. */
async function removeStaleUploads(dir: string): Promise<void> {
  const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(TEMP_PREFIX));
  const cutoff = Date.now() - STALE_UPLOAD_MS;
  for (const name of names) {
    const file = path.join(dir, name);
    const st = await fs.stat(file).catch(() => undefined);
    if (st && st.mtimeMs < cutoff) await fs.rm(file, { force: true });
  }
}
