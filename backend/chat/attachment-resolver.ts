import type { AttachmentStore } from '../attachments/attachment-store.js';
import { extractPdfText } from '../attachments/pdf-text.js';
import type { Block, MediaBlock, Protocol } from '../llm/llm-types.js';
import type { AttachmentBlock, CompactionRecord, StoredMessage } from './chat-types.js';
import { liveMessages, type AttachmentLookup } from './conversation.js';

/** A text file as the model reads it (DESIGN 8): wrapped and named. */
export function fileText(name: string, text: string): string {
  return `<file name="${name.replace(/["<>&]/g, (c) => `&#${c.charCodeAt(0)};`)}">\n${text}\n</file>`;
}

function missing(a: AttachmentBlock): Block[] {
  return [{ type: 'text', text: `[${a.type === 'image' ? 'image' : 'file'} ${a.name} is no longer available]` }];
}

/**
 * Attachments of one session as one protocol takes them: images as media (for a model with vision),
 * PDFs as documents (compat: their text, extracted by the PDF library), text files wrapped with
 * their name. Bytes are loaded once per turn, before the requests are built.
 */
export class AttachmentResolver implements AttachmentLookup {
  private readonly loaded = new Map<string, Block[]>();

  constructor(
    private readonly store: AttachmentStore,
    private readonly workspaceId: string,
    private readonly sessionId: string,
    private readonly protocol: Protocol,
    private readonly vision: boolean,
  ) {}

  /** Loads every attachment the messages after the last compaction refer to. */
  async prepare(items: (StoredMessage | CompactionRecord)[]): Promise<void> {
    const refs: AttachmentBlock[] = [];
    for (const m of liveMessages(items)) {
      for (const b of m.blocks) {
        if (b.type === 'image' || b.type === 'file') refs.push(b);
        if (b.type === 'tool_result' && b.attachments) refs.push(...b.attachments);
      }
    }
    for (const ref of refs) if (!this.loaded.has(ref.attachment_id)) this.loaded.set(ref.attachment_id, await this.load(ref));
  }

  private async load(ref: AttachmentBlock): Promise<Block[]> {
    let found;
    try {
      found = await this.store.read(this.workspaceId, this.sessionId, ref.attachment_id);
    } catch {
      return missing(ref);
    }
    const { meta, bytes } = found;
    const media = (kind: MediaBlock['kind']): MediaBlock => ({
      type: 'media',
      kind,
      mime: meta.mime,
      name: ref.name,
      data: bytes.toString('base64'),
    });
    switch (meta.kind) {
      case 'image':
        return this.vision ? [media('image')] : [{ type: 'text', text: `[image ${ref.name}: not shown, this model cannot read images]` }];
      case 'pdf':
        if (this.protocol !== 'compat') return [media('pdf')];
        try {
          const { pages, text } = await extractPdfText(bytes);
          return [{ type: 'text', text: fileText(ref.name, text.trim() || `[${pages} page(s) without extractable text]`) }];
        } catch (err) {
          return [{ type: 'text', text: `[PDF ${ref.name}: its text could not be read (${(err as Error).message})]` }];
        }
      case 'text':
        return [{ type: 'text', text: fileText(ref.name, bytes.toString('utf8')) }];
    }
  }

  blocks(a: AttachmentBlock): Block[] {
    return this.loaded.get(a.attachment_id) ?? missing(a);
  }

  toolMedia(attachments: AttachmentBlock[]): MediaBlock[] {
    return attachments.flatMap((a) => (this.loaded.get(a.attachment_id) ?? []).filter((b): b is MediaBlock => b.type === 'media'));
  }
}
