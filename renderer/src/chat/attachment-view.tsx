import { createContext, useContext, useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';
import { useT } from '../i18n/i18n';
import { Dialog } from '../ui/controls';
import { AttachIcon } from './attachment-tray';
import { attachmentsPath, fetchAttachment } from './attachment-upload';
import type { Block } from './chat-types';

export type AttachmentBlock = Extract<Block, { type: 'image' | 'file' }>;

/**
 * Object URLs of one conversation's attachments, fetched once with the credential and kept while
 * the conversation is open (rows of the virtual list come and go; their images should not reload).
 */
export class AttachmentCache {
  private readonly urls = new Map<string, Promise<string>>();

  constructor(
    private readonly api: ApiClient,
    private readonly workspaceId: string,
    private readonly sessionId: string,
  ) {}

  url(id: string): Promise<string> {
    let url = this.urls.get(id);
    if (!url) {
      url = fetchAttachment(this.api, attachmentsPath(this.workspaceId, this.sessionId, id)).then((blob) => URL.createObjectURL(blob));
      // A failed fetch may be retried by the next row that asks.
      url.catch(() => this.urls.delete(id));
      this.urls.set(id, url);
    }
    return url;
  }

  dispose(): void {
    for (const url of this.urls.values())
      void url.then(
        (u) => URL.revokeObjectURL(u),
        () => undefined,
      );
    this.urls.clear();
  }
}

export const AttachmentContext = createContext<AttachmentCache | null>(null);

function useObjectUrl(id: string): { url?: string; failed: boolean } {
  const cache = useContext(AttachmentContext);
  const [state, setState] = useState<{ id: string; url?: string; failed: boolean }>({ id, failed: false });
  useEffect(() => {
    if (!cache) return;
    let live = true;
    cache.url(id).then(
      (url) => live && setState({ id, url, failed: false }),
      () => live && setState({ id, failed: true }),
    );
    return () => {
      live = false;
    };
  }, [cache, id]);
  return state.id === id ? state : { failed: false };
}

/** An image in the conversation: a thumbnail that opens at full size. */
function ImageThumb({ block }: { block: AttachmentBlock }) {
  const t = useT();
  const { url, failed } = useObjectUrl(block.attachment_id);
  const [open, setOpen] = useState(false);
  if (failed) return <span className="att-chip att-missing">{t('chat.attach.missing', { name: block.name })}</span>;
  return (
    <>
      <button
        type="button"
        className="att-thumb"
        onClick={() => setOpen(true)}
        aria-label={t('chat.attach.openImage', { name: block.name })}
      >
        {url ? <img src={url} alt={block.name} /> : <span className="att-thumb-wait" />}
      </button>
      <Dialog title={block.name} open={open} onClose={() => setOpen(false)} wide>
        <div className="dialog-body att-full">{url && <img src={url} alt={block.name} />}</div>
        <div className="dialog-foot">
          {url && (
            <a className="btn" href={url} download={block.name}>
              {t('chat.attach.download')}
            </a>
          )}
          <button type="button" className="btn btn-primary" onClick={() => setOpen(false)}>
            {t('common.close')}
          </button>
        </div>
      </Dialog>
    </>
  );
}

/** A PDF or text file in the conversation: a chip that downloads it. */
function FileChip({ block }: { block: AttachmentBlock }) {
  const t = useT();
  const cache = useContext(AttachmentContext);
  const [failed, setFailed] = useState(false);
  const download = async () => {
    if (!cache) return;
    try {
      const a = document.createElement('a');
      a.href = await cache.url(block.attachment_id);
      a.download = block.name;
      a.click();
      setFailed(false);
    } catch {
      setFailed(true);
    }
  };
  return (
    <button type="button" className="att-chip" onClick={() => void download()} title={t('chat.attach.downloadName', { name: block.name })}>
      <AttachIcon kind="file" /> <span className="att-name">{block.name}</span>
      {failed && <span role="alert"> · {t('chat.attach.missing', { name: block.name })}</span>}
    </button>
  );
}

/** The attachments of a message, in their order. */
export function MessageAttachments({ blocks }: { blocks: Block[] }) {
  const files = blocks.filter((b): b is AttachmentBlock => b.type === 'image' || b.type === 'file');
  if (files.length === 0) return null;
  return (
    <div className="att-list">
      {files.map((b, i) =>
        b.type === 'image' ? (
          <ImageThumb key={`${b.attachment_id}-${i}`} block={b} />
        ) : (
          <FileChip key={`${b.attachment_id}-${i}`} block={b} />
        ),
      )}
    </div>
  );
}
