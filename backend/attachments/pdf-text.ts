import type { ByteSource } from './byte-source.js';

/**
 * PDF page counts and text. The PDF library (pdf.js, 1.6 MB) is imported only when a PDF needs it:
 * a page count the quick scan cannot find, or the text of a PDF sent to a compat model.
 */
async function pdfLibrary() {
  return import('unpdf');
}

/** Opens the document; pdf.js may detach the buffer it is given, so it gets a copy. */
async function openPdf(bytes: Uint8Array) {
  const { getDocumentProxy } = await pdfLibrary();
  return getDocumentProxy(new Uint8Array(bytes));
}

const CHUNK = 1024 * 1024;
const OVERLAP = 64;

/**
 * Counts page objects (`/Type /Page`, not `/Pages`) in chunks. Zero when the pages sit in compressed
 * object streams (PDF 1.5+), where only the library can count them.
 */
export async function scanPageObjects(source: ByteSource): Promise<number> {
  let pages = 0;
  for (let offset = 0; offset < source.size; offset += CHUNK) {
    const text = (await source.read(offset, CHUNK + OVERLAP)).toString('latin1');
    for (const m of text.matchAll(/\/Type\s*\/Page(?![A-Za-z0-9])/g)) if (m.index < CHUNK) pages++;
  }
  return pages;
}

/** The number of pages, or undefined when the document does not open. */
export async function pdfPageCount(source: ByteSource): Promise<number | undefined> {
  const scanned = await scanPageObjects(source);
  if (scanned > 0) return scanned;
  try {
    const doc = await openPdf(await source.read(0, source.size));
    try {
      return doc.numPages;
    } finally {
      await doc.loadingTask.destroy();
    }
  } catch {
    return undefined;
  }
}

/** The text of every page, pages separated by a blank line; for models that cannot read PDFs. */
export async function extractPdfText(bytes: Uint8Array): Promise<{ pages: number; text: string }> {
  const { extractText } = await pdfLibrary();
  const doc = await openPdf(bytes);
  try {
    const { totalPages, text } = await extractText(doc, { mergePages: false });
    return { pages: totalPages, text: text.map((t) => t.trim()).join('\n\n') };
  } finally {
    await doc.loadingTask.destroy();
  }
}

/** The text of each page in order (knowledge bases cite PDF passages by page). */
export async function extractPdfPages(bytes: Uint8Array): Promise<string[]> {
  const { extractText } = await pdfLibrary();
  const doc = await openPdf(bytes);
  try {
    const { text } = await extractText(doc, { mergePages: false });
    return text;
  } finally {
    await doc.loadingTask.destroy();
  }
}
