import type { ChunkRow } from './kb-index.js';

// A source's text from its chunks, the overlap between neighbours removed (each chunk repeats
// the end of the one before it); null when it would exceed `maxChars`.

export function joinChunks(chunks: ChunkRow[], maxChars: number): string | null {
  let out = '';
  let prev: ChunkRow | null = null;
  for (const c of chunks) {
    let add = c.text;
    if (prev && prev.doc_id === c.doc_id && samePlace(prev, c)) {
      const probe = c.text.slice(0, Math.min(40, c.text.length));
      const at = prev.text.indexOf(probe, Math.max(0, prev.text.length - 2000));
      if (at >= 0 && c.text.startsWith(prev.text.slice(at))) add = c.text.slice(prev.text.length - at);
      else add = `\n\n${c.text}`;
    } else if (prev) add = `\n\n${c.text}`;
    if (out.length + add.length > maxChars) return null;
    out += add;
    prev = c;
  }
  return out;
}

function samePlace(a: ChunkRow, b: ChunkRow): boolean {
  return a.location.page === b.location.page && JSON.stringify(a.location.heading) === JSON.stringify(b.location.heading);
}
