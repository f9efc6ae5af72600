// The attachments contract (DESIGN 8) as types, for clients: the renderer imports these type-only.

export type AttachmentKind = 'image' | 'text' | 'pdf';

/** 201 of POST /api/workspaces/:id/sessions/:sid/attachments (raw body, `X-Filename`). */
export interface AttachmentView {
  /** The SHA-256 of the bytes (hex): storage is content-addressed. */
  id: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  kind: AttachmentKind;
  width?: number;
  height?: number;
  pages?: number;
}

/** The limits the backend enforces; the renderer checks the same numbers before uploading. */
export const ATTACHMENT_LIMITS = {
  /** Any upload. */
  maxBytes: 20 * 1024 * 1024,
  /** Images, as the providers document them. */
  maxImageBytes: 5 * 1024 * 1024,
  maxImageSide: 8000,
  /** UTF-8 text files. */
  maxTextBytes: 2 * 1024 * 1024,
  /** PDF pages Anthropic's Messages API reads in one document (facts: attachments per protocol). */
  maxPdfPagesNative: 100,
  /** Attachments on one message. */
  maxPerMessage: 10,
  /** The renderer downscales images to this long side before upload. */
  downscaleSide: 2048,
} as const;

/** Image types a vision model takes. */
export const IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
