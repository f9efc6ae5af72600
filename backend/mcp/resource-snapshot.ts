import { ATTACHMENT_LIMITS, type AttachmentView } from '../attachments/attachment-api.js';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import { ApiError } from '../http/errors.js';
import { serverFailureMessage } from './mcp-errors.js';
import { readResource, type ResourceSnapshot } from './mcp-features.js';
import type { McpManager } from './mcp-manager.js';

export interface ResourceRef {
  server: string;
  uri: string;
}

/** A file a resource becomes: its text, or one binary part (an image, a PDF). */
interface SnapshotFile {
  name: string;
  bytes: Buffer;
  /** A binary part: stored only when its bytes are a type attachments take; else named in the text. */
  binary?: { mime: string | null };
}

/** The name a resource's file shows: the last segment of its URI (`…/document/architecture.md`). */
export function resourceFileName(uri: string, index: number): string {
  const segment =
    uri
      .replace(/[?#].*$/, '')
      .split('/')
      .filter(Boolean)
      .pop() ?? '';
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // a stray % is kept as written
  }
  name = name.replace(/^[a-z][a-z0-9+.-]*:$/i, ''); // a bare scheme ("note:") names nothing
  return (name || 'resource') + (index > 0 ? `-${index + 1}` : '');
}

function binaryNote(mime: string | null, bytes: number): string {
  return `[binary content${mime ? `, ${mime}` : ''}, ${bytes} bytes, not included]`;
}

/** The files of one read: the text parts joined into one text file, each binary part its own file. */
function filesOf(snap: ResourceSnapshot): SnapshotFile[] {
  const name = resourceFileName(snap.uri, 0);
  const binaries = snap.parts.filter((p) => p.text === undefined && p.blob !== undefined);
  const files: SnapshotFile[] = binaries.map((p, i) => ({
    name: resourceFileName(snap.uri, i),
    bytes: Buffer.from(p.blob!, 'base64'),
    binary: { mime: p.mime },
  }));
  const texts = snap.parts.filter((p) => p.text !== undefined).map((p) => p.text!);
  if (texts.length > 0) files.unshift({ name, bytes: Buffer.from(texts.join('\n'), 'utf8') });
  return files;
}

/**
 * DESIGN 9: a resource attached to a message is read once, at send time, and stored as attachments
 * of the message (text, or an image or PDF part), so the conversation keeps what the model saw even
 * when the resource changes later. Other binary content is named in a short text file instead.
 * Returns the attachment ids, in the order of `refs`.
 */
export async function snapshotResources(
  manager: McpManager,
  attachments: AttachmentStore,
  workspaceId: string,
  sessionId: string,
  refs: ResourceRef[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, ref] of refs.entries()) {
    const field = `resources[${i}]`;
    const conn = await manager.startedOne(workspaceId, ref.server);
    if (!conn) {
      throw new ApiError('validation_failed', `${field}.server: no tool server named "${ref.server}" in this workspace`, {
        field: `${field}.server`,
      });
    }
    let snap: ResourceSnapshot;
    try {
      snap = await readResource(conn, ref.uri);
    } catch (err) {
      const code = (err as { code?: unknown })?.code;
      if (typeof code === 'number' && code < 0 && code !== -32000 && code !== -32001) {
        throw new ApiError('validation_failed', `${field}.uri: ${(err as Error).message}`, { field: `${field}.uri` });
      }
      throw new ApiError('upstream_unavailable', serverFailureMessage(ref.server, err));
    }
    if (snap.parts.length === 0) {
      throw new ApiError('validation_failed', `${field}.uri: the server returned no content for ${ref.uri}`, { field: `${field}.uri` });
    }
    const notes: string[] = [];
    for (const file of filesOf(snap)) {
      const saved = await saveFile(attachments, workspaceId, sessionId, file, field);
      if (saved) ids.push(saved.id);
      else notes.push(binaryNote(file.binary?.mime ?? null, file.bytes.length));
    }
    if (notes.length > 0) {
      const view = await saveFile(
        attachments,
        workspaceId,
        sessionId,
        { name: `${resourceFileName(snap.uri, 0)}.txt`, bytes: Buffer.from(notes.join('\n')) },
        field,
      );
      if (view) ids.push(view.id);
    }
  }
  return ids;
}

/** Stores one file; a binary part of a type attachments refuse gives undefined (it is named instead). */
async function saveFile(
  store: AttachmentStore,
  workspaceId: string,
  sessionId: string,
  file: SnapshotFile,
  field: string,
): Promise<AttachmentView | undefined> {
  if (!file.binary && file.bytes.length > ATTACHMENT_LIMITS.maxTextBytes) {
    throw new ApiError(
      'validation_failed',
      `${field}.uri: the resource holds ${file.bytes.length} bytes of text; a resource attached to a message may hold at most ${ATTACHMENT_LIMITS.maxTextBytes} (2 MiB)`,
      { field: `${field}.uri` },
    );
  }
  try {
    return await store.save(workspaceId, sessionId, file.name, [file.bytes.length > 0 ? file.bytes : Buffer.from('(empty)')]);
  } catch (err) {
    if (file.binary && err instanceof ApiError && (err.code === 'unsupported_attachment' || err.code === 'attachment_too_large'))
      return undefined;
    if (err instanceof ApiError) throw new ApiError('validation_failed', `${field}.uri: ${err.message}`, { field: `${field}.uri` });
    throw err;
  }
}
