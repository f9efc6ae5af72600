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

/** An FTS5 MATCH expression for what the user typed: every word (as a prefix), CJK runs as phrases. */
export function matchQuery(q: string): string | null {
  const parts: string[] = [];
  for (const word of q.split(/\s+/)) {
    const tokens = searchTerms(word)
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
    if (tokens.length === 0) continue;
    const phrase = tokens.map((t) => t.replace(/"/g, '""')).join(' ');
    // The last token of a Latin word may be unfinished (search as you type): a prefix.
    parts.push(CJK_ONE.test(tokens[tokens.length - 1]) ? `"${phrase}"` : `"${phrase}"*`);
  }
  return parts.length > 0 ? parts.join(' ') : null;
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
