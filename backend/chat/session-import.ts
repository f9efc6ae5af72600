import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ATTACHMENT_LIMITS } from '../attachments/attachment-api.js';
import { saveAttachment, tooLarge } from '../attachments/attachment-store.js';
import { bufferSource } from '../attachments/byte-source.js';
import { detectAttachment } from '../attachments/detect-type.js';
import { ApiError } from '../http/errors.js';
import type { ImportResponse } from './branch-api.js';
import { convertChatGpt } from './import-chatgpt.js';
import { describeNotes, ImportError, importedMeta, type ImportedSession } from './import-kit.js';
import { convertServiceExport } from './import-service.js';
import { ArrayStreamError, jsonArrayElements } from './json-array-stream.js';
import { SessionBatch } from './session-batch.js';
import type { SessionStore } from './session-store.js';

const PARALLEL_WRITES = 16;

/** Our own export is one session: read whole (it is bounded by what one session holds). */
const MAX_SERVICE_EXPORT_BYTES = 256 * 1024 * 1024;

async function firstByte(file: string): Promise<number> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    for (let pos = 0; ; pos += buffer.length) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, pos);
      if (bytesRead === 0) return -1;
      for (let i = 0; i < bytesRead; i++) {
        const c = buffer[i];
        // Whitespace and a UTF-8 byte order mark come before the JSON.
        if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0xef && c !== 0xbb && c !== 0xbf) return c;
      }
    }
  } finally {
    await handle.close();
  }
}

async function* conversations(file: string): AsyncGenerator<ImportedSession> {
  const head = await firstByte(file);
  if (head === 0x5b) {
    try {
      for await (const { index, value } of jsonArrayElements(file)) yield await convertChatGpt(value, index);
    } catch (err) {
      if (err instanceof ArrayStreamError) throw new ImportError(err.path, err.message);
      throw err;
    }
    return;
  }
  if (head === 0x7b) {
    const { size } = await fs.stat(file);
    if (size > MAX_SERVICE_EXPORT_BYTES) throw new ImportError('', 'A service-session export larger than 256 MB is not accepted.');
    let value: unknown;
    try {
      value = JSON.parse((await fs.readFile(file, 'utf8')).replace(/^\uFEFF/, ''));
    } catch (err) {
      throw new ImportError('', `The file is not valid JSON: ${(err as Error).message}`);
    }
    yield convertServiceExport(value);
    return;
  }
  throw new ImportError('', 'The file must be a ChatGPT conversations.json (a JSON array) or a service-session export (a JSON object).');
}

/** The preview runs the upload's checks on an export's files too, so it refuses what the import would. */
async function checkFiles(files: NonNullable<ImportedSession['files']>): Promise<void> {
  for (const f of files) {
    const refused =
      f.bytes.length > ATTACHMENT_LIMITS.maxBytes
        ? tooLarge().message
        : await detectAttachment(bufferSource(f.bytes)).then((d) => (d.ok ? null : d.message));
    if (refused) throw new ImportError(f.path, `${f.path} (${f.name}): ${refused}`);
  }
}

/** An export's files into a staged session: type-checked from the bytes like any upload. */
async function writeFiles(dir: string, files: NonNullable<ImportedSession['files']>): Promise<void> {
  for (const f of files) {
    try {
      await saveAttachment(dir, f.name, [f.bytes]);
    } catch (err) {
      if (err instanceof ApiError) throw new ImportError(f.path, `${f.path} (${f.name}): ${err.message}`);
      throw err;
    }
  }
}

/**
 * `POST /api/workspaces/:id/sessions/import` (DESIGN 7) from an uploaded file: each conversation is
 * converted and written to a staging folder as it is read; only when the whole file is good do the
 * new sessions appear (never over an existing one). `dryRun` is the preview: the same checks and
 * counts, nothing written.
 */
export async function importSessions(store: SessionStore, workspaceId: string, file: string, dryRun: boolean): Promise<ImportResponse> {
  const head = await firstByte(file);
  const result: ImportResponse = { format: head === 0x7b ? 'service-session' : 'chatgpt', sessions: [], skipped: [], dry_run: dryRun };
  const batch = dryRun ? null : await SessionBatch.begin(store, workspaceId);
  // Sessions are written a few at a time: their fsyncs then share the file system's journal commits.
  const writing = new Set<Promise<void>>();
  try {
    for await (const conv of conversations(file)) {
      if (conv.messageCount === 0) {
        result.skipped.push({
          title: conv.title,
          reason: `no user or assistant text${conv.notes.size ? ` (${describeNotes(conv.notes)})` : ''}`,
        });
        continue;
      }
      const meta = importedMeta(conv);
      if (!batch) await checkFiles(conv.files ?? []);
      else {
        const write: Promise<void> = batch
          .add(meta, conv.records)
          .then(() => writeFiles(path.join(batch.stagedDir(meta.id), 'attachments'), conv.files ?? []))
          .finally(() => writing.delete(write));
        write.catch(() => undefined); // handled: awaited below, and a failure aborts the batch
        writing.add(write);
        if (writing.size >= PARALLEL_WRITES) await Promise.race(writing);
      }
      result.sessions.push({ id: dryRun ? '' : meta.id, title: conv.title, message_count: conv.messageCount, branches: conv.branches });
      if (conv.notes.size) result.skipped.push({ title: conv.title, reason: `left out: ${describeNotes(conv.notes)}` });
    }
    await Promise.all(writing);
    await batch?.commit();
  } catch (err) {
    await Promise.allSettled(writing);
    await batch?.abort();
    throw err;
  }
  return result;
}
