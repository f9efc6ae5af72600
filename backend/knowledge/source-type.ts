import { nameBinary } from '../attachments/binary-names.js';
import { sniffMarkup } from '../attachments/markup-sniff.js';
import { zipNames } from './zip-entry.js';

// What a knowledge file is, from its bytes (DESIGN 13): the container (PDF, DOCX, UTF-8 text) is
// decided by magic numbers and validity, never by the name; for text, the name's extension only
// chooses how the text is split (Markdown headings, CSV rows), and HTML is recognised by its markup.

export type DocType = 'pdf' | 'docx' | 'html' | 'markdown' | 'csv' | 'json' | 'text';

export const DOC_MIME: Record<DocType, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html',
  markdown: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  text: 'text/plain',
};

export type Detection = { ok: true; type: DocType; mime: string } | { ok: false; message: string };

function isUtf8(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const ext = (name: string) => /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';

export function detectDocType(bytes: Buffer, name: string): Detection {
  const found = (type: DocType): Detection => ({ ok: true, type, mime: DOC_MIME[type] });
  if (bytes.length === 0) return { ok: false, message: 'The file is empty.' };
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return found('pdf');
  if (bytes.readUInt32LE(0) === 0x04034b50) {
    if (zipNames(bytes).includes('word/document.xml')) return found('docx');
    return {
      ok: false,
      message:
        'The file is a ZIP archive that is not a Word document (DOCX); knowledge bases read PDF, DOCX, HTML, Markdown, CSV, JSON and UTF-8 text.',
    };
  }
  if (!isUtf8(bytes)) {
    const what = nameBinary(bytes.subarray(0, 64 * 1024));
    return {
      ok: false,
      message: `The file is ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what}; knowledge bases read PDF, DOCX, HTML, Markdown, CSV, JSON and UTF-8 text.`,
    };
  }
  const e = ext(name);
  const head = bytes.subarray(0, 64 * 1024).toString('utf8');
  if (sniffMarkup(head) === 'HTML document' || e === 'html' || e === 'htm') return found('html');
  if (e === 'md' || e === 'markdown' || e === 'mdx') return found('markdown');
  if (e === 'csv' || e === 'tsv') return found('csv');
  const trimmed = head.trimStart();
  if (e === 'json' || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      JSON.parse(bytes.toString('utf8'));
      return found('json');
    } catch {
      /* text that looks like JSON but is not */
    }
  }
  return found('text');
}
