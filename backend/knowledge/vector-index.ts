import { blobVector } from './kb-index.js';

// An in-memory copy of a KB's vectors for cosine search without a native extension: int8 per
// dimension with one scale per vector (a quarter of float32's memory: 100k × 768 ≈ 77 MB), scanned
// in full; the best candidates are then rescored with the exact float32 vectors from SQLite.

export class VectorIndex {
  private ids: Int32Array;
  private q: Int8Array;
  private scales: Float32Array;
  size = 0;

  constructor(
    readonly dims: number,
    capacity = 1024,
  ) {
    this.ids = new Int32Array(capacity);
    this.q = new Int8Array(capacity * dims);
    this.scales = new Float32Array(capacity);
  }

  static build(dims: number, rows: Iterable<{ id: number; vec: Uint8Array }>): VectorIndex {
    const index = new VectorIndex(dims);
    for (const r of rows) {
      if (r.vec.byteLength !== dims * 4) continue; // never mixed: a vector of another size is not ours
      index.add(r.id, blobVector(r.vec));
    }
    return index;
  }

  add(id: number, v: Float32Array): void {
    if (this.size === this.ids.length) this.grow();
    const d = this.dims;
    let max = 0;
    for (let i = 0; i < d; i++) max = Math.max(max, Math.abs(v[i]));
    const scale = max > 0 ? max / 127 : 1;
    const base = this.size * d;
    for (let i = 0; i < d; i++) this.q[base + i] = Math.round(v[i] / scale);
    this.scales[this.size] = scale;
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
    this.ids = ids;
    this.q = q;
    this.scales = scales;
  }

  /** Bytes held (for the bench's memory figure). */
  get bytes(): number {
    return this.q.byteLength + this.ids.byteLength + this.scales.byteLength;
  }

  /** The `k` best chunk ids by approximate cosine (the query must be normalised). */
  top(query: Float32Array, k: number): { id: number; score: number }[] {
    const d = this.dims;
    const q = this.q;
    const heap = new MinHeap(k);
    const tail = d - (d % 4);
    for (let n = 0, base = 0; n < this.size; n++, base += d) {
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
      heap.push(this.ids[n], (s0 + s1 + s2 + s3) * this.scales[n]);
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
