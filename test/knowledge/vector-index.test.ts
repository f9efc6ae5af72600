import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalise } from '../../backend/knowledge/embed-client.js';
import { packVector } from '../../backend/knowledge/vector-bytes.js';
import { vectorBlob } from '../../backend/knowledge/kb-index.js';
import { CANDIDATES, VectorIndex } from '../../backend/knowledge/vector-index.js';

// The in-memory vector index: the sign-bit pass over a large KB must keep the true nearest
// neighbours (compared with an exact float scan), and a small KB is scored in full.

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

describe('knowledge: vector index', () => {
  it('finds the exact top 10 of a clustered KB larger than the candidate pool (recall ≥ 0.9)', () => {
    const rand = rng(7);
    const dims = 128;
    const n = CANDIDATES * 8;
    const centers = Array.from({ length: 50 }, () => Float32Array.from({ length: dims }, rand));
    const vectors: Float32Array[] = [];
    const index = new VectorIndex(dims);
    for (let i = 0; i < n; i++) {
      const c = centers[i % centers.length];
      const v = normalise(Float32Array.from({ length: dims }, (_, j) => c[j] + rand() * 0.8));
      vectors.push(v);
      index.add(i, v);
    }
    let found = 0;
    const queries = 20;
    for (let qi = 0; qi < queries; qi++) {
      const base = vectors[(qi * 997) % n];
      const q = normalise(Float32Array.from(base, (x) => x + rand() * 0.05));
      const exact = vectors
        .map((v, id) => ({ id, s: v.reduce((acc, x, j) => acc + x * q[j], 0) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10)
        .map((r) => r.id);
      const got = new Set(index.top(q, 10).map((r) => r.id));
      found += exact.filter((id) => got.has(id)).length;
      assert.ok(got.has((qi * 997) % n), 'the vector the query was made from is found');
    }
    assert.ok(found / (queries * 10) >= 0.9, `recall ${found / (queries * 10)}`);
  });

  it('scores a small KB in full, best first, with cosine close to exact', () => {
    const index = new VectorIndex(4);
    index.add(1, normalise(Float32Array.from([1, 0, 0, 0])));
    index.add(2, normalise(Float32Array.from([1, 1, 0, 0])));
    index.add(3, normalise(Float32Array.from([0, 0, 1, 0])));
    const top = index.top(normalise(Float32Array.from([1, 0.1, 0, 0])), 3);
    assert.deepEqual(
      top.map((t) => t.id),
      [1, 2, 3],
    );
    assert.ok(Math.abs(top[0].score - 0.995) < 0.02);
  });

  it('loads the packed form stored with each vector into the same index the float32 vectors give', () => {
    const rand = rng(11);
    const dims = 100; // not a multiple of 32 or 4: the last sign word and the scoring tail are partial
    const vectors = Array.from({ length: CANDIDATES + 500 }, () => normalise(Float32Array.from({ length: dims }, rand)));
    const fromFloats = VectorIndex.build(
      dims,
      vectors.map((v, id) => ({ id, q: null, vec: vectorBlob(v) })),
      vectors.length,
    );
    const fromPacked = VectorIndex.build(
      dims,
      vectors.map((v, id) => ({ id, q: packVector(v), vec: null })),
      vectors.length,
    );
    assert.equal(fromPacked.size, vectors.length);
    assert.equal(fromPacked.bytes, fromFloats.bytes);
    for (let i = 0; i < 5; i++) {
      const q = normalise(Float32Array.from({ length: dims }, rand));
      assert.deepEqual(fromPacked.top(q, 20), fromFloats.top(q, 20));
    }
    // A packed form of another size is not ours: it is skipped, as a float32 vector of another size is.
    assert.equal(VectorIndex.build(dims + 1, [{ id: 1, q: packVector(vectors[0]), vec: null }]).size, 0);
  });
});
