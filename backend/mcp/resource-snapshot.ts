import { ApiError } from '../http/errors.js';
import { serverFailureMessage } from './mcp-errors.js';
import { readResource, type ResourceSnapshot } from './mcp-features.js';
import type { McpManager } from './mcp-manager.js';
import { cutResult } from './tool-result.js';

export interface ResourceRef {
  server: string;
  uri: string;
}

const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * DESIGN 9: a resource attached to a message is read once, at send time, and stored with the
 * message, so the conversation keeps what the model saw even when the resource changes later.
 * Until messages carry attachments, the snapshot is a text block of the user message; binary
 * content (images, blobs) is named with its type and size, not included.
 */
export function snapshotText(snap: ResourceSnapshot): string {
  const body = snap.parts
    .map((p) => {
      if (p.text !== undefined) return p.text;
      const bytes = Math.floor(((p.blob ?? '').length * 3) / 4);
      return `[binary content${p.mime ? `, ${p.mime}` : ''}, ${bytes} bytes, not included]`;
    })
    .join('\n');
  const mime = snap.parts.find((p) => p.mime)?.mime;
  return `<resource server="${attr(snap.server)}" uri="${attr(snap.uri)}"${mime ? ` mime="${attr(mime)}"` : ''}>\n${cutResult(body)}\n</resource>`;
}

/** Reads every referenced resource of the workspace's servers; a bad reference is a 400 naming it. */
export async function snapshotResources(manager: McpManager, workspaceId: string, refs: ResourceRef[]): Promise<string[]> {
  const out: string[] = [];
  for (const [i, ref] of refs.entries()) {
    const conn = await manager.startedOne(workspaceId, ref.server);
    if (!conn) {
      throw new ApiError('validation_failed', `resources[${i}].server: no tool server named "${ref.server}" in this workspace`, {
        field: `resources[${i}].server`,
      });
    }
    try {
      out.push(snapshotText(await readResource(conn, ref.uri)));
    } catch (err) {
      const code = (err as { code?: unknown })?.code;
      if (typeof code === 'number' && code < 0 && code !== -32000 && code !== -32001) {
        throw new ApiError('validation_failed', `resources[${i}].uri: ${(err as Error).message}`, { field: `resources[${i}].uri` });
      }
      throw new ApiError('upstream_unavailable', serverFailureMessage(ref.server, err));
    }
  }
  return out;
}
