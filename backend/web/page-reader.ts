// A fetched page as text a model can read (DESIGN 14): HTML → main content (Readability, Mozilla's
// reader view, on linkedom: a small DOM without scripts or resources) → Markdown (turndown); PDF
// → text (unpdf, the PDF library attachments use); text stays text; anything else is refused
// naming its type. The HTML libraries (~400 KB) load on the first page read, not at start-up.
import { extractPdfText } from '../attachments/pdf-text.js';
import { WebError, type FetchedPage } from './safe-fetch.js';

export interface ReadPage {
  url: string;
  title: string;
  /** What the page was read as. */
  kind: 'html' | 'pdf' | 'text';
  markdown: string;
}

let htmlLibraries: Promise<{
  parseHTML: typeof import('linkedom').parseHTML;
  Readability: typeof import('@mozilla/readability').Readability;
  turndown: import('turndown');
}> | null = null;

function loadHtmlLibraries() {
  htmlLibraries ??= (async () => {
    const [{ parseHTML }, { Readability }, { default: TurndownService }] = await Promise.all([
      import('linkedom'),
      import('@mozilla/readability'),
      import('turndown'),
    ]);
    const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    turndown.remove(['script', 'style', 'noscript', 'iframe', 'form', 'button']);
    return { parseHTML, Readability, turndown };
  })();
  return htmlLibraries;
}

function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function charsetOf(contentType: string, body: Buffer): string {
  const declared = /charset="?([\w-]+)/i.exec(contentType)?.[1];
  const meta = declared ? undefined : /<meta[^>]+charset=["']?([\w-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1];
  return (declared ?? meta ?? 'utf-8').toLowerCase();
}

function decode(body: Buffer, contentType: string): string {
  try {
    return new TextDecoder(charsetOf(contentType, body)).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** Sniffs what a server sent without a usable Content-Type. */
function sniff(body: Buffer): string {
  if (body.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  const head = body.subarray(0, 512).toString('utf8').trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'text/html';
  return 'application/octet-stream';
}

export async function readPage(page: FetchedPage): Promise<ReadPage> {
  let type = mediaType(page.contentType);
  if (!type || type === 'application/octet-stream' || type === 'binary/octet-stream') type = sniff(page.body);
  if (type === 'text/html' || type === 'application/xhtml+xml') return readHtml(page.url, decode(page.body, page.contentType));
  if (type === 'application/pdf') {
    let text: string;
    try {
      text = (await extractPdfText(page.body)).text;
    } catch (err) {
      throw new WebError('unsupported_type', `The PDF at ${page.url} could not be read: ${(err as Error).message}`);
    }
    return { url: page.url, title: titleFromUrl(page.url), kind: 'pdf', markdown: text };
  }
  if (
    type.startsWith('text/') ||
    type === 'application/json' ||
    type.endsWith('+json') ||
    type === 'application/xml' ||
    type.endsWith('+xml')
  )
    return { url: page.url, title: titleFromUrl(page.url), kind: 'text', markdown: decode(page.body, page.contentType) };
  throw new WebError('unsupported_type', `The page ${page.url} is ${type}; web_fetch reads HTML, PDF and text pages only.`);
}

function titleFromUrl(url: string): string {
  const u = new URL(url);
  return decodeURIComponent(u.pathname.split('/').filter(Boolean).pop() ?? '') || u.hostname;
}

export async function readHtml(url: string, html: string): Promise<ReadPage> {
  const { parseHTML, Readability, turndown } = await loadHtmlLibraries();
  // linkedom has no document URL: a <base> makes Readability turn relative links absolute.
  const base = `<base href="${url.replace(/"/g, '&quot;')}">`;
  const withBase = /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (m) => m + base) : base + html;
  const { document } = parseHTML(withBase);
  const fallbackTitle = document.querySelector('title')?.textContent?.trim() ?? '';
  const heading = document.querySelector('h1')?.textContent?.trim() ?? '';
  const article = parseArticle(() => new Readability(document as unknown as Document, { charThreshold: 200 }).parse());
  // No article found (a link list, a tiny page): the body without its chrome.
  const content = article?.content ?? bodyWithoutChrome(parseHTML(withBase).document);
  const markdown = turndown.turndown(content).trim();
  let title = (article?.title ?? '').trim() || fallbackTitle || titleFromUrl(url);
  // "Article | Site": the page's own heading, when the title starts with it, is the cleaner name.
  if (heading.length >= 3 && title !== heading && title.startsWith(heading)) title = heading;
  return { url, title, kind: 'html', markdown };
}

/** Readability throws on some malformed pages: they fall back to the body without chrome. */
function parseArticle(parse: () => { title?: string | null; content?: string | null } | null) {
  try {
    return parse();
  } catch {
    return null;
  }
}

function bodyWithoutChrome(document: ReturnType<typeof import('linkedom').parseHTML>['document']): string {
  for (const el of Array.from(
    document.querySelectorAll('script, style, noscript, nav, header, footer, aside, form') as ArrayLike<{ remove(): void }>,
  ))
    el.remove();
  return document.body?.innerHTML ?? '';
}

/** The page cut to `maxChars`, the cut said (so the model can ask for more or another page). */
export function cutText(text: string, maxChars: number): { text: string; cut: boolean } {
  if (text.length <= maxChars) return { text, cut: false };
  return { text: text.slice(0, maxChars), cut: true };
}
