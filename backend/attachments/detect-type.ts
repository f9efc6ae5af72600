import { ATTACHMENT_LIMITS, type AttachmentKind } from './attachment-api.js';
import { nameBinary } from './binary-names.js';
import type { ByteSource } from './byte-source.js';
import { readImageHeader } from './image-header.js';
import { sniffMarkup } from './markup-sniff.js';
import { pdfPageCount } from './pdf-text.js';

export interface Detected {
  ok: true;
  kind: AttachmentKind;
  mime: string;
  width?: number;
  height?: number;
  pages?: number;
}

/** Why the bytes are refused: 415 for a type we do not take, 413 for a limit. */
export interface Refused {
  ok: false;
  code: 'unsupported_attachment' | 'attachment_too_large';
  /** What the bytes are (`SVG image`, `ZIP archive`…), for 415s. */
  detected?: string;
  message: string;
}

const MIB = 1024 * 1024;
const HEAD = 64 * 1024;

function unsupported(detected: string, why = ''): Refused {
  return {
    ok: false,
    code: 'unsupported_attachment',
    detected,
    message: `This file is ${/^[aeiou]/i.test(detected) ? 'an' : 'a'} ${detected}${why}; attachments must be PNG, JPEG, GIF or WebP images, PDF documents or UTF-8 text files.`,
  };
}

function tooLarge(message: string): Refused {
  return { ok: false, code: 'attachment_too_large', message };
}

/** UTF-8 without NUL bytes; `partial` accepts a multi-byte sequence cut at the end. */
function isUtf8Text(bytes: Uint8Array, partial: boolean): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: partial });
  } catch {
    return undefined;
  }
}

/**
 * Decides what an upload is from its bytes alone (magic numbers, UTF-8 validity); the name and
 * Content-Type are never trusted (DESIGN 8).
 */
export async function detectAttachment(source: ByteSource): Promise<Detected | Refused> {
  if (source.size === 0) return unsupported('empty file');
  const head = await source.read(0, HEAD);

  const image = await readImageHeader(source, head);
  if (image) {
    const kindName = image.mime.slice(6).toUpperCase();
    if ('damaged' in image) return unsupported(`damaged ${kindName} image`, ` (${image.damaged})`);
    if (source.size > ATTACHMENT_LIMITS.maxImageBytes) {
      return tooLarge(
        `Images may be at most ${ATTACHMENT_LIMITS.maxImageBytes / MIB} MiB (this one is ${(source.size / MIB).toFixed(1)} MiB).`,
      );
    }
    const side = ATTACHMENT_LIMITS.maxImageSide;
    if (image.width > side || image.height > side) {
      return tooLarge(`Images may be at most ${side} pixels a side (this one is ${image.width}×${image.height}).`);
    }
    if (image.width === 0 || image.height === 0) return unsupported(`damaged ${kindName} image`, ' (it has no pixels)');
    return { ok: true, kind: 'image', mime: image.mime, width: image.width, height: image.height };
  }

  if (head.toString('latin1', 0, 5) === '%PDF-') {
    const pages = await pdfPageCount(source);
    if (pages === undefined || pages === 0) return unsupported('damaged PDF document', ' (its pages cannot be read)');
    return { ok: true, kind: 'pdf', mime: 'application/pdf', pages };
  }

  const headText = isUtf8Text(head, source.size > head.length);
  if (headText === undefined) return unsupported(nameBinary(head));
  const markup = sniffMarkup(headText);
  if (markup) return unsupported(markup, ' (it could run script in a browser)');
  if (source.size > ATTACHMENT_LIMITS.maxTextBytes) {
    return tooLarge(
      `Text files may be at most ${ATTACHMENT_LIMITS.maxTextBytes / MIB} MiB (this one is ${(source.size / MIB).toFixed(1)} MiB).`,
    );
  }
  if (source.size > head.length && isUtf8Text(await source.read(0, source.size), false) === undefined) {
    return unsupported('file that is not UTF-8 text', ' (it starts as text but holds other bytes further on)');
  }
  return { ok: true, kind: 'text', mime: 'text/plain' };
}
