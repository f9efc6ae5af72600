import type { AttachmentBlock, CompactionRecord, StoredMessage } from './chat-types.js';

/**
 * The attachments messages refer to (user files and images tools returned), first reference first:
 * what an export must carry and a fork must copy (DESIGN 7, 8).
 */
export function attachmentRefs(items: Iterable<StoredMessage | CompactionRecord>): Map<string, AttachmentBlock> {
  const refs = new Map<string, AttachmentBlock>();
  for (const item of items) {
    if (item.role === 'system') continue;
    for (const b of item.blocks) {
      const found = b.type === 'image' || b.type === 'file' ? [b] : b.type === 'tool_result' ? (b.attachments ?? []) : [];
      for (const a of found) if (!refs.has(a.attachment_id)) refs.set(a.attachment_id, a);
    }
  }
  return refs;
}
