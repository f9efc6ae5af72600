/**
 * Text that a browser would treat as a document: HTML and SVG can carry script, so they are
 * refused as attachments even though they are valid UTF-8 (DESIGN 8).
 */

// Tags that make a document rather than a fragment: a README that opens with `<div align="center">`
// or `<p>` stays a text file (it is served as text/plain, nosniff, sandboxed, either way).
const HTML_DOCUMENT_TAGS = new Set(['html', 'head', 'body', 'script', 'iframe', 'frameset', 'meta', 'style', 'title', 'object', 'embed']);

/** `HTML document`, `SVG image`, or undefined for plain text. Looks past a BOM, XML prolog, comments and doctype. */
export function sniffMarkup(text: string): 'HTML document' | 'SVG image' | undefined {
  let rest = text.slice(0, 64 * 1024).replace(/^\uFEFF/, '');
  for (let step = 0; step < 50; step++) {
    rest = rest.trimStart();
    if (!rest.startsWith('<')) return undefined;
    const lower = rest.slice(0, 64).toLowerCase();
    if (lower.startsWith('<!--')) {
      const end = rest.indexOf('-->');
      if (end < 0) return undefined;
      rest = rest.slice(end + 3);
      continue;
    }
    if (lower.startsWith('<?')) {
      const end = rest.indexOf('?>');
      if (end < 0) return undefined;
      rest = rest.slice(end + 2);
      continue;
    }
    if (lower.startsWith('<!doctype')) {
      if (/^<!doctype\s+html/.test(lower)) return 'HTML document';
      if (/^<!doctype\s+svg/.test(lower)) return 'SVG image';
      const end = rest.indexOf('>');
      if (end < 0) return undefined;
      rest = rest.slice(end + 1);
      continue;
    }
    const tag = /^<([a-z][a-z0-9_.-]*(?::[a-z][a-z0-9_.-]*)?)[\s/>]/.exec(lower)?.[1];
    if (!tag) return undefined;
    const local = tag.includes(':') ? tag.slice(tag.indexOf(':') + 1) : tag;
    if (local === 'svg') return 'SVG image';
    if (HTML_DOCUMENT_TAGS.has(local)) return 'HTML document';
    return undefined;
  }
  return undefined;
}
