/**
 * The baseline of the retrieval-quality bench: textbook Okapi BM25 (k1 = 1.2, b = 0.75) over whole
 * paragraphs, written here independently of the product. Tokens follow FTS5's default unicode61
 * tokenizer (letters and digits, case folded, diacritics removed), no stemming, no stop words; the
 * query is the bag of its tokens (any term may match). IDF is the Robertson–Spärck Jones weight
 * with 1 added inside the log (as Lucene does), so a term in more than half the paragraphs still
 * counts a little instead of negatively.
 */
export function terms(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

export class Bm25 {
  private readonly tf: Map<string, number>[];
  private readonly lengths: number[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(
    docs: string[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    this.tf = docs.map((doc) => {
      const counts = new Map<string, number>();
      for (const t of terms(doc)) counts.set(t, (counts.get(t) ?? 0) + 1);
      return counts;
    });
    this.lengths = docs.map((_, i) => [...this.tf[i].values()].reduce((a, c) => a + c, 0));
    for (const counts of this.tf) for (const t of counts.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    this.avgLength = this.lengths.reduce((a, c) => a + c, 0) / Math.max(1, docs.length);
  }

  idf(term: string): number {
    const n = this.df.get(term) ?? 0;
    const N = this.tf.length;
    return Math.log(1 + (N - n + 0.5) / (n + 0.5));
  }

  score(query: string, doc: number): number {
    const counts = this.tf[doc];
    const norm = this.k1 * (1 - this.b + (this.b * this.lengths[doc]) / this.avgLength);
    let s = 0;
    for (const t of terms(query)) {
      const f = counts.get(t);
      if (f) s += (this.idf(t) * f * (this.k1 + 1)) / (f + norm);
    }
    return s;
  }

  /** Indices of the best `k` documents with a score above 0, best first (ties by index). */
  search(query: string, k: number): number[] {
    const scored: { i: number; s: number }[] = [];
    for (let i = 0; i < this.tf.length; i++) {
      const s = this.score(query, i);
      if (s > 0) scored.push({ i, s });
    }
    scored.sort((x, y) => y.s - x.s || x.i - y.i);
    return scored.slice(0, k).map((x) => x.i);
  }
}
