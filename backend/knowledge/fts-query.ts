// User text reaches FTS5 only as quoted terms (facts §6): `7.3.2`, `AURA-7`, `NEAR`, `*`, `-`, `:`
// and quotes are words, never syntax, so no query can raise a syntax error (a 500).

/** At most this many terms: a pasted page is a query too, and each term costs a posting-list walk. */
const MAX_TERMS = 64;

/** Whitespace-separated terms of `text`, each a quoted FTS5 string (internal `"` doubled). */
export function ftsTerms(text: string): string[] {
  const terms: string[] = [];
  for (const raw of text.split(/\s+/)) {
    // A term with no letter or digit (`-`, `*`, `"`) would be an empty phrase: it matches nothing.
    if (!raw || !/[\p{L}\p{N}]/u.test(raw)) continue;
    terms.push(`"${raw.replace(/"/g, '""')}"`);
    if (terms.length >= MAX_TERMS) break;
  }
  return terms;
}

/**
 * The MATCH expression for a search: any term may match (OR), bm25 ranks passages holding more
 * and rarer terms first. Null when the text holds no searchable term (the search answers nothing).
 */
export function ftsMatch(text: string): string | null {
  const terms = ftsTerms(text);
  return terms.length > 0 ? terms.join(' OR ') : null;
}

/** Every term must match (AND): the probe that checks a chunk is findable by its own words. */
export function ftsAllOf(text: string, maxTerms = 8): string | null {
  const terms = ftsTerms(text).slice(0, maxTerms);
  return terms.length > 0 ? terms.join(' ') : null;
}
