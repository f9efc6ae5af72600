import type { AttachmentView } from '../../../backend/attachments/attachment-api.js';
import type { ApiClient } from '../api/client';
import { fetchBytes, uploadRaw } from '../api/raw-transfer';

export type { AttachmentView };

const MIB = 1024 * 1024;
/** The backend's limits (backend/attachments/attachment-api.ts; the renderer imports no backend code). */
export const ATTACHMENT_LIMITS = {
  maxBytes: 20 * MIB,
  maxImageBytes: 5 * MIB,
  maxPerMessage: 10,
  downscaleSide: 2048,
} as const;

const RESIZABLE = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** Canvas to blob as a promise; null when the browser cannot encode it. */
function encode(canvas: HTMLCanvasElement, type: string): Promise<Blob | null> {
  return new Promise((resolve) => canvas.toBlob(resolve, type, 0.9));
}

function renamed(name: string, type: string): string {
  const ext = type === 'image/png' ? '.png' : '.jpg';
  return /\.[A-Za-z0-9]+$/.test(name) ? name.replace(/\.[A-Za-z0-9]+$/, ext) : name + ext;
}

/**
 * Images wider or taller than 2048 px, or heavier than the backend's 5 MiB, are redrawn on a
 * canvas at most 2048 px on the long side (DESIGN 8) before they leave the machine: photos as
 * JPEG, screenshots and drawings as PNG (JPEG when the PNG would still be too heavy).
 */
export async function downscaled(file: Blob, name: string): Promise<{ blob: Blob; name: string }> {
  if (!RESIZABLE.includes(file.type)) return { blob: file, name };
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return { blob: file, name }; // not decodable here: the backend decides what it is
  }
  const side = ATTACHMENT_LIMITS.downscaleSide;
  const long = Math.max(bitmap.width, bitmap.height);
  if (long <= side && file.size <= ATTACHMENT_LIMITS.maxImageBytes) {
    bitmap.close();
    return { blob: file, name };
  }
  const scale = Math.min(1, side / long);
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  const ctx = canvas.getContext('2d');
  if (!ctx) {
    bitmap.close();
    return { blob: file, name };
  }
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const lossless = file.type === 'image/png' || file.type === 'image/gif';
  let type = lossless ? 'image/png' : 'image/jpeg';
  let blob = await encode(canvas, type);
  if (blob && blob.size > ATTACHMENT_LIMITS.maxImageBytes && type === 'image/png') {
    type = 'image/jpeg';
    blob = await encode(canvas, type);
  }
  if (!blob) return { blob: file, name };
  return { blob, name: type === file.type ? name : renamed(name, type) };
}

export function attachmentsPath(ws: string, sid: string, id = ''): string {
  const enc = encodeURIComponent;
  return `/api/workspaces/${enc(ws)}/sessions/${enc(sid)}/attachments${id ? `/${enc(id)}` : ''}`;
}

/**
 * Uploads one file as the raw body, with progress. Failures are ApiFailures with the backend's code
 * (`attachment_too_large`, `unsupported_attachment`…).
 */
export function uploadAttachment(
  api: ApiClient,
  path: string,
  blob: Blob,
  name: string,
  onProgress: (fraction: number) => void,
): { done: Promise<AttachmentView>; abort(): void } {
  return uploadRaw<AttachmentView>(api, path, blob, {
    name,
    contentType: blob.type || 'application/octet-stream',
    onProgress,
    expect: 201,
  });
}

/** The bytes of a stored attachment, with the credential (an <img src> could not send it). */
export function fetchAttachment(api: ApiClient, path: string): Promise<Blob> {
  return fetchBytes(api, path);
}
