import { blobVector, packedBytes, quantizeInto, signWords } from './vector-bytes.js';

// An in-memory copy of a KB's vectors for cosine search without a native extension, in two tiers:
// the sign bit of every dimension (768 dims → 96 bytes) for a Hamming-distance pass over all
// vectors, and int8 per dimension with one scale per vector (a quarter of float32's memory:
// 100k × 768 ≈ 77 MB) to score the best `CANDIDATES` of that pass. The caller rescores the winners
// with the exact float32 vectors from SQLite. Small KBs (≤ CANDIDATES vectors) are scored in full.

/** Vectors kept after the sign-bit pass: 2% of 100k; binary quantisation keeps recall high at this oversampling. */
export const CANDIDATES = 2000;

const POPCOUNT16 = new Uint8Array(1 << 16);
for (let i = 1; i < POPCOUNT16.length; i++) POPCOUNT16[i] = POPCOUNT16[i >> 1] + (i & 1);

export class VectorIndex {
  private ids: Int32Array;
  private q: Int8Array;
  private scales: Float32Array;
  private bits: Uint32Array;
  private readonly words: number;
  size = 0;

  constructor(
    readonly dims: number,
    capacity = 1024,
  ) {
    this.ids = new Int32Array(capacity);
    this.q = new Int8Array(capacity * dims);
    this.scales = new Float32Array(capacity);
    this.words = signWords(dims);
    this.bits = new Uint32Array(capacity * this.words);
  }

  /**
   * `expected`: how many rows come, so the arrays are allocated once (growing by doubling left up to
   * twice the memory behind). A row brings its packed form `q` (vector-bytes.ts) or, when the index
   * has none for it, its float32 `vec`.
   */
  static build(dims: number, rows: Iterable<{ id: number; q: Uint8Array | null; vec: Uint8Array | null }>, expected = 1024): VectorIndex {
    const index = new VectorIndex(dims, Math.max(1, expected));
    for (const r of rows) {
      if (r.q && r.q.byteLength === packedBytes(dims)) index.addPacked(r.id, r.q);
      // Never mixed: a vector of another size is not ours.
      else if (r.vec && r.vec.byteLength === dims * 4) index.add(r.id, blobVector(r.vec));
    }
    return index;
  }

  add(id: number, v: Float32Array): void {
    if (this.size === this.ids.length) this.grow();
    const d = this.dims;
    this.scales[this.size] = quantizeInto(v, d, this.q, this.size * d, this.bits, this.size * this.words);
    this.ids[this.size] = id;
    this.size++;
  }

  /** A vector already packed when it was stored: copied, not computed. */
  addPacked(id: number, packed: Uint8Array): void {
    if (this.size === this.ids.length) this.grow();
    const d = this.dims;
    const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
    this.q.set(new Int8Array(packed.buffer, packed.byteOffset, d), this.size * d);
    this.scales[this.size] = view.getFloat32(d, true);
    const w = this.size * this.words;
    for (let j = 0; j < this.words; j++) this.bits[w + j] = view.getUint32(d + 4 + j * 4, true);
    this.ids[this.size] = id;
    this.size++;
  }

  private grow(): void {
    const cap = this.ids.length * 2;
    const ids = new Int32Array(cap);
    ids.set(this.ids);
    const q = new Int8Array(cap * this.dims);
    q.set(this.q);
    const scales = new Float32Array(cap);
    scales.set(this.scales);
    const bits = new Uint32Array(cap * this.words);
    bits.set(this.bits);
    this.ids = ids;
    this.q = q;
    this.scales = scales;
    this.bits = bits;
  }

  /** Bytes held (for the bench's memory figure). */
  get bytes(): number {
    return this.q.byteLength + this.ids.byteLength + this.scales.byteLength + this.bits.byteLength;
  }

  /** Positions of the vectors nearest to `query` by sign-bit Hamming distance (at most about `count`). */
  private nearestBits(query: Float32Array, count: number): Uint32Array {
    const W = this.words;
    const qb = new Uint32Array(W);
    for (let i = 0; i < this.dims; i++) if (query[i] > 0) qb[i >> 5] |= 1 << (i & 31);
    const dist = new Uint16Array(this.size);
    const hist = new Uint32Array(this.dims + 2);
    const bits = this.bits;
    for (let n = 0, base = 0; n < this.size; n++, base += W) {
      let h = 0;
      for (let j = 0; j < W; j++) {
        const x = (bits[base + j] ^ qb[j]) >>> 0;
        h += POPCOUNT16[x & 0xffff] + POPCOUNT16[x >>> 16];
      }
      dist[n] = h;
      hist[h]++;
    }
    // The smallest distance T whose cumulative count reaches `count`: keep everything below T, then ties.
    let t = 0;
    let below = 0;
    while (t < hist.length && below + hist[t] < count) below += hist[t++];
    const out = new Uint32Array(Math.min(this.size, count));
    let k = 0;
    for (let n = 0; n < this.size && k < out.length; n++) if (dist[n] < t) out[k++] = n;
    for (let n = 0; n < this.size && k < out.length; n++) if (dist[n] === t) out[k++] = n;
    return out.subarray(0, k);
  }

  private score(query: Float32Array, n: number, tail: number): number {
    const d = this.dims;
    const q = this.q;
    const base = n * d;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = 0; i < tail; i += 4) {
      s0 += query[i] * q[base + i];
      s1 += query[i + 1] * q[base + i + 1];
      s2 += query[i + 2] * q[base + i + 2];
      s3 += query[i + 3] * q[base + i + 3];
    }
    for (let i = tail; i < d; i++) s0 += query[i] * q[base + i];
    return (s0 + s1 + s2 + s3) * this.scales[n];
  }

  /** The `k` best chunk ids by approximate cosine (the query must be normalised). */
  top(query: Float32Array, k: number): { id: number; score: number }[] {
    const heap = new MinHeap(k);
    const tail = this.dims - (this.dims % 4);
    if (this.size <= CANDIDATES) {
      for (let n = 0; n < this.size; n++) heap.push(this.ids[n], this.score(query, n, tail));
    } else {
      for (const n of this.nearestBits(query, Math.max(CANDIDATES, k))) heap.push(this.ids[n], this.score(query, n, tail));
    }
    return heap.sorted();
  }
}

/** Keeps the `k` highest scores seen. */
class MinHeap {
  private readonly ids: number[] = [];
  private readonly scores: number[] = [];

  constructor(private readonly k: number) {}

  push(id: number, score: number): void {
    const { ids, scores } = this;
    if (ids.length < this.k) {
      ids.push(id);
      scores.push(score);
      let i = ids.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (scores[p] <= scores[i]) break;
        this.swap(i, p);
        i = p;
      }
      return;
    }
    if (this.k === 0 || score <= scores[0]) return;
    ids[0] = id;
    scores[0] = score;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < ids.length && scores[l] < scores[m]) m = l;
      if (r < ids.length && scores[r] < scores[m]) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    [this.ids[a], this.ids[b]] = [this.ids[b], this.ids[a]];
    [this.scores[a], this.scores[b]] = [this.scores[b], this.scores[a]];
  }

  sorted(): { id: number; score: number }[] {
    return this.ids.map((id, i) => ({ id, score: this.scores[i] })).sort((a, b) => b.score - a.score);
  }
}
