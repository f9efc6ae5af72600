import type { LogRecord } from './chat-types.js';

/** Han, kana, hangul: scripts written without spaces between words. */
const CJK_CLASS = '[\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff]';
const CJK = new RegExp(CJK_CLASS, 'gu');
const CJK_ONE = new RegExp(`^${CJK_CLASS}$`, 'u');

/**
 * The text FTS5's unicode61 tokenizer indexes: every CJK character becomes a token of its own, so a
 * search for any run of characters ("你好") finds it inside longer text, as it does for words.
 */
export function searchTerms(text: string): string {
  return text.replace(CJK, (c) => ` ${c} `);
}

/** A query uses at most this many distinct terms; the rest are ignored (and the answer says so). */
export const MAX_QUERY_TERMS = 16;
/** Terms this short are never expanded as prefixes: "a*" would match most of the index. */
const MIN_PREFIX_CHARS = 3;

export interface MatchQuery {
  /** The FTS5 MATCH expression, or null when the query holds no searchable term. */
  match: string | null;
  /** The distinct terms searched, in the order typed (at most MAX_QUERY_TERMS). */
  terms: string[];
  /** Distinct terms past the first MAX_QUERY_TERMS, left out. */
  dropped: number;
}

/**
 * An FTS5 MATCH expression for what the user typed: every word (its last token as a prefix when it
 * has 3 or more characters), CJK runs as phrases; the first 16 distinct terms only, so the work a
 * query causes stays bounded whatever it holds.
 */
export function matchQuery(q: string): MatchQuery {
  const parts: string[] = [];
  const terms: string[] = [];
  const seen = new Set<string>();
  const ignored = new Set<string>();
  for (const word of q.split(/\s+/)) {
    const all = searchTerms(word)
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
    const tokens: string[] = [];
    for (const t of all) {
      const key = t.toLowerCase();
      if (!seen.has(key) && seen.size >= MAX_QUERY_TERMS) {
        ignored.add(key);
        continue;
      }
      if (!seen.has(key)) {
        seen.add(key);
        terms.push(t);
      }
      tokens.push(t);
    }
    if (tokens.length === 0) continue;
    const phrase = tokens.map((t) => t.replace(/"/g, '""')).join(' ');
    const last = tokens[tokens.length - 1];
    // The last token of a Latin word may be unfinished (search as you type): a prefix, when long enough.
    const prefix = !CJK_ONE.test(last) && [...last].length >= MIN_PREFIX_CHARS;
    const part = prefix ? `"${phrase}"*` : `"${phrase}"`;
    if (!parts.includes(part)) parts.push(part);
  }
  return { match: parts.length > 0 ? parts.join(' ') : null, terms, dropped: ignored.size };
}

const CONTEXT = 40;

/** Text around the first word of the query found in `text` (case-insensitive). */
export function snippetOf(text: string, q: string): string {
  const lower = text.toLowerCase();
  let at = -1;
  let length = 0;
  for (const word of q.toLowerCase().split(/\s+/).filter(Boolean)) {
    at = lower.indexOf(word);
    length = word.length;
    if (at >= 0) break;
  }
  if (at < 0) at = 0;
  const start = Math.max(0, at - CONTEXT);
  const end = Math.min(text.length, at + length + CONTEXT);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}

/** What a stored record contributes to search: the message (or compaction summary) and its text. */
export function searchableOf(r: LogRecord): { id: string; created_at: string; text: string } | null {
  if (r.t === 'compaction') return { id: r.c.id, created_at: r.c.created_at, text: r.c.summary };
  if (r.t !== 'message') return null;
  const texts = r.m.blocks.flatMap((b) =>
    b.type === 'text' || b.type === 'thinking' ? [b.text] : b.type === 'tool_result' ? [b.content] : [],
  );
  const text = texts.join('\n').trim();
  return text ? { id: r.m.id, created_at: r.m.created_at, text } : null;
}
