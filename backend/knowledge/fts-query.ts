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
 *
 * `common` (optional) says which terms at least half the chunks hold. FTS5's bm25 gives such a term
 * an idf of 1e-6 (its log would be zero or negative), so it cannot move the ranking, yet bm25 reads
 * the length of every chunk it matches: "the" in a 100,000-chunk KB cost 80 of a search's 90 ms.
 * They are left out when `common` names them (KbIndex.commonTerms: only when a rarer word finds passages).
 */
export function ftsMatch(text: string, common?: (terms: string[]) => Set<string>): string | null {
  const terms = ftsTerms(text);
  if (terms.length === 0) return null;
  const drop = common?.(terms.map(unquote));
  const kept = drop && drop.size > 0 ? terms.filter((t) => !drop.has(unquote(t))) : terms;
  return (kept.length > 0 ? kept : terms).join(' OR ');
}

function unquote(term: string): string {
  return term.slice(1, -1).replace(/""/g, '"');
}

/**
 * The one FTS5 token a user's term stands for under `unicode61 remove_diacritics 2` (folded case,
 * marks removed), or null when the tokenizer would split it (`AURA-7`, `7.3.2`): such phrases are
 * rare by construction and always kept.
 */
export function singleToken(term: string): string | null {
  const t = term.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  return /^[\p{L}\p{N}]+$/u.test(t) ? t : null;
}

/** Every term must match (AND): the probe that checks a chunk is findable by its own words. */
export function ftsAllOf(text: string, maxTerms = 8): string | null {
  const terms = ftsTerms(text).slice(0, maxTerms);
  return terms.length > 0 ? terms.join(' ') : null;
}
