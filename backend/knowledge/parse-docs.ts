import { extractPdfPages } from '../attachments/pdf-text.js';
import { readHtml } from '../web/page-reader.js';
import type { Segment } from './chunker.js';
import { estimateTokens } from './chunker.js';
import type { DocType } from './source-type.js';
import { zipEntry } from './zip-entry.js';

// Each document type as segments with the location a citation opens: PDF pages, the heading path
// of Markdown/HTML/DOCX sections, line ranges of text, code and JSON, CSV rows with their header.

/** A document type's text failed to come out (damaged, encrypted…): the message names why. */
export class ParseError extends Error {}

const MAX_INFLATED = 256 * 1024 * 1024;

export async function parseDocument(type: DocType, bytes: Buffer, name: string, tokens: number): Promise<Segment[]> {
  switch (type) {
    case 'pdf':
      return pdfSegments(bytes);
    case 'docx':
      return docxSegments(bytes);
    case 'html':
      return markdownSegments((await readHtml(`file:///${encodeURIComponent(name)}`, bytes.toString('utf8'))).markdown, false);
    case 'markdown':
      return markdownSegments(bytes.toString('utf8'), true);
    case 'csv':
      return csvSegments(bytes.toString('utf8'), tokens);
    case 'json':
      return [{ text: jsonText(bytes.toString('utf8')), location: {}, firstLine: 1 }];
    case 'text':
      return [{ text: bytes.toString('utf8').replace(/^\uFEFF/, ''), location: {}, firstLine: 1 }];
  }
}

async function pdfSegments(bytes: Buffer): Promise<Segment[]> {
  let pages: string[];
  try {
    pages = await extractPdfPages(bytes);
  } catch (err) {
    throw new ParseError(`The PDF could not be read: ${(err as Error).message}`);
  }
  return pages.map((text, i) => ({ text, location: { page: i + 1 } }));
}

/** Sections under ATX headings (`#`…`######`), fenced code left alone; `lines`: carry line ranges. */
export function markdownSegments(text: string, lines: boolean): Segment[] {
  const out: Segment[] = [];
  const path: string[] = [];
  const src = text.replace(/^\uFEFF/, '');
  let fence: string | null = null;
  let sectionStart = 0;
  let sectionLine = 1;
  let line = 1;
  let pos = 0;
  const flush = (end: number) => {
    const body = src.slice(sectionStart, end);
    if (body.trim())
      out.push({ text: body, location: path.length ? { heading: [...path] } : {}, ...(lines ? { firstLine: sectionLine } : {}) });
  };
  while (pos <= src.length) {
    const nl = src.indexOf('\n', pos);
    const lineEnd = nl < 0 ? src.length : nl;
    const l = src.slice(pos, lineEnd);
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(l)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) fence = fence === null ? marker : null;
    else if (fence === null) {
      const h = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(l);
      if (h) {
        flush(pos);
        path.splice(h[1].length - 1);
        while (path.length < h[1].length - 1) path.push('');
        path.push(h[2]);
        sectionStart = pos;
        sectionLine = line;
      }
    }
    if (nl < 0) break;
    pos = nl + 1;
    line++;
  }
  flush(src.length);
  for (const seg of out) if (seg.location.heading) seg.location.heading = seg.location.heading.filter(Boolean);
  return out;
}

/** Splits CSV into rows (quotes may hold commas and newlines), linear in the text. */
function csvRows(text: string): { row: string; line: number }[] {
  const rows: { row: string; line: number }[] = [];
  let start = 0;
  let line = 1;
  let rowLine = 1;
  let quoted = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 10;
    if (c === 34) quoted = !quoted;
    else if (c === 10 && (!quoted || i === text.length)) {
      const row = text.slice(start, i).replace(/\r$/, '');
      if (row.trim()) rows.push({ row, line: rowLine });
      start = i + 1;
      rowLine = line + 1;
    }
    if (c === 10) line++;
  }
  return rows;
}

/** Rows in groups under the token budget, each group led by the header row. */
function csvSegments(text: string, tokens: number): Segment[] {
  const rows = csvRows(text.replace(/^\uFEFF/, ''));
  if (rows.length === 0) return [];
  const [header, ...body] = rows;
  if (body.length === 0) return [{ text: header.row, location: { line_start: header.line, line_end: header.line } }];
  const out: Segment[] = [];
  const budget = Math.max(32, tokens - estimateTokens(header.row));
  let group: typeof body = [];
  let used = 0;
  const flush = () => {
    if (!group.length) return;
    const text = [header.row, ...group.map((r) => r.row)].join('\n');
    out.push({ text, location: { line_start: group[0].line, line_end: group[group.length - 1].line } });
    group = [];
    used = 0;
  };
  for (const r of body) {
    const t = estimateTokens(r.row);
    if (used + t > budget) flush();
    group.push(r);
    used += t;
  }
  flush();
  return out;
}

/** JSON as written, or pretty-printed when it is one long line (line ranges then mean something). */
function jsonText(text: string): string {
  const src = text.replace(/^\uFEFF/, '');
  if (src.length < 200 || (src.indexOf('\n') >= 0 && src.indexOf('\n') < src.length - 2)) return src;
  try {
    return JSON.stringify(JSON.parse(src), null, 2);
  } catch {
    return src;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function xmlText(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e] ?? m;
  });
}

/** DOCX: paragraphs of word/document.xml; `Heading N` / `Title` styles open sections. */
function docxSegments(bytes: Buffer): Segment[] {
  let xml: string;
  try {
    const entry = zipEntry(bytes, 'word/document.xml', MAX_INFLATED);
    if (!entry) throw new Error('word/document.xml is missing');
    xml = entry.toString('utf8');
  } catch (err) {
    throw new ParseError(`The Word document could not be read: ${(err as Error).message}`);
  }
  const paragraphs: { text: string; level: number }[] = [];
  let text = '';
  let level = 0;
  const end = () => {
    if (text.trim()) paragraphs.push({ text: text.trim(), level });
    text = '';
    level = 0;
  };
  const re = /<w:p[ >/]|<\/w:p>|<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<w:pStyle\s+w:val="([^"]*)"|<w:tab\/>|<w:br\/>/g;
  for (const m of xml.matchAll(re)) {
    const tag = m[0];
    if (m[1] !== undefined) text += xmlText(m[1]);
    else if (m[2] !== undefined) {
      const h = /^(?:heading\s*(\d)|title)$/i.exec(m[2]);
      if (h) level = h[1] ? Number(h[1]) : 1;
    } else if (tag === '</w:p>') end();
    else if (tag === '<w:tab/>') text += '\t';
    else if (tag === '<w:br/>') text += '\n';
    else end();
  }
  end();
  const md = paragraphs.map((p) => (p.level ? `${'#'.repeat(Math.min(6, p.level))} ${p.text}` : p.text)).join('\n\n');
  return markdownSegments(md, false);
}
