import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiFailure, type ApiClient } from '../api/client';
import { ATTACHMENT_LIMITS, attachmentsPath, downscaled, uploadAttachment, type AttachmentView } from './attachment-upload';

/** Why a file was refused, said in the UI language by whoever shows it. */
export type AttachmentProblem =
  | { code: 'too_large'; detail?: string }
  | { code: 'unsupported'; detail?: string }
  | { code: 'too_many' }
  | { code: 'failed'; detail: string };

/** A file on its way into the next message. */
export interface PendingAttachment {
  key: string;
  name: string;
  size: number;
  image: boolean;
  /** Object URL of the local bytes, for the thumbnail. */
  preview?: string;
  /** 0..1 while uploading. */
  progress: number;
  status: 'preparing' | 'uploading' | 'ready' | 'error';
  view?: AttachmentView;
  problem?: AttachmentProblem;
}

function problemOf(err: unknown): AttachmentProblem {
  if (err instanceof ApiFailure) {
    if (err.code === 'attachment_too_large' || err.status === 413) return { code: 'too_large', detail: err.message };
    if (err.code === 'unsupported_attachment' || err.status === 415) return { code: 'unsupported', detail: err.message };
  }
  return { code: 'failed', detail: (err as Error)?.message ?? String(err) };
}

let counter = 0;

/**
 * The attachments of the message being written: each file is downscaled (images), uploaded with
 * progress, and kept with its id; removing one aborts its upload and frees its preview.
 */
export function useAttachments(api: ApiClient, workspaceId: string, sessionId: string) {
  const [items, setItems] = useState<PendingAttachment[]>([]);
  const aborts = useRef(new Map<string, () => void>());
  const previews = useRef(new Set<string>());

  const patch = useCallback((key: string, change: Partial<PendingAttachment>) => {
    setItems((list) => list.map((i) => (i.key === key ? { ...i, ...change } : i)));
  }, []);

  useEffect(() => {
    const open = aborts.current;
    const urls = previews.current;
    return () => {
      for (const abort of open.values()) abort();
      for (const url of urls) URL.revokeObjectURL(url);
    };
  }, []);

  const addOne = useCallback(
    async (file: File, key: string) => {
      try {
        const { blob, name } = await downscaled(file, file.name || 'pasted');
        if (blob.size > ATTACHMENT_LIMITS.maxBytes) return patch(key, { status: 'error', problem: { code: 'too_large' } });
        patch(key, { status: 'uploading', name, size: blob.size });
        const upload = uploadAttachment(api, attachmentsPath(workspaceId, sessionId), blob, name, (progress) => patch(key, { progress }));
        aborts.current.set(key, upload.abort);
        const view = await upload.done;
        patch(key, { status: 'ready', progress: 1, view, name: view.name, image: view.kind === 'image' });
      } catch (err) {
        if (err instanceof ApiFailure && err.code === 'aborted') return;
        patch(key, { status: 'error', problem: problemOf(err) });
      } finally {
        aborts.current.delete(key);
      }
    },
    [api, workspaceId, sessionId, patch],
  );

  const add = useCallback(
    (files: File[]) => {
      const room = ATTACHMENT_LIMITS.maxPerMessage - items.filter((i) => i.status !== 'error').length;
      const fresh: PendingAttachment[] = files.map((file, n) => {
        const key = `att-${++counter}`;
        const image = file.type.startsWith('image/');
        const preview = image ? URL.createObjectURL(file) : undefined;
        if (preview) previews.current.add(preview);
        const base = { key, name: file.name || 'pasted', size: file.size, image, preview, progress: 0 };
        return n < room ? { ...base, status: 'preparing' } : { ...base, status: 'error', problem: { code: 'too_many' } };
      });
      setItems((list) => [...list, ...fresh]);
      fresh.forEach((p, n) => {
        if (p.status === 'preparing') void addOne(files[n], p.key);
      });
    },
    [items, addOne],
  );

  const remove = useCallback((key: string) => {
    aborts.current.get(key)?.();
    setItems((list) => {
      const gone = list.find((i) => i.key === key);
      if (gone?.preview) {
        URL.revokeObjectURL(gone.preview);
        previews.current.delete(gone.preview);
      }
      return list.filter((i) => i.key !== key);
    });
  }, []);

  const clear = useCallback(() => {
    setItems((list) => {
      for (const i of list) if (i.preview) URL.revokeObjectURL(i.preview);
      return [];
    });
    previews.current.clear();
  }, []);

  return {
    items,
    add,
    remove,
    clear,
    ready: items.filter((i) => i.status === 'ready' && i.view).map((i) => i.view!),
    uploading: items.some((i) => i.status === 'preparing' || i.status === 'uploading'),
  };
}
