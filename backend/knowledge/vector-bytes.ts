// The byte forms of a vector in the index: `vec`, little-endian float32 (exact, for rescoring), and
// `q`, the form the in-memory scan uses, packed once when the vector is stored: int8 per dimension,
// the float32 scale, then the sign bit of every dimension (32 per uint32). Loading 100k vectors
// from `q` reads 868 bytes per 768-dim vector instead of 3 KB, and needs no arithmetic: the garbage
// of reading float32 blobs (about 300 MB for 100k) stayed behind as RSS.

/** Float32 view of a blob (a copy only when it is not 4-byte aligned). */
export function blobVector(b: Uint8Array): Float32Array {
  if (b.byteOffset % 4 === 0) return new Float32Array(b.buffer, b.byteOffset, b.byteLength >> 2);
  const copy = new Uint8Array(b);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}

export const signWords = (dims: number) => Math.ceil(dims / 32);

/** Bytes of a packed vector of `dims` dimensions. */
export const packedBytes = (dims: number) => dims + 4 + signWords(dims) * 4;

/** `v` as int8 with one scale (max |v| / 127) and its sign bits, into `q`, `scales[n]` and `bits`. */
export function quantizeInto(v: Float32Array, dims: number, q: Int8Array, qAt: number, bits: Uint32Array, bitsAt: number): number {
  let max = 0;
  for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(v[i]));
  const scale = max > 0 ? max / 127 : 1;
  for (let i = 0; i < dims; i++) q[qAt + i] = Math.round(v[i] / scale);
  for (let i = 0; i < dims; i++) if (v[i] > 0) bits[bitsAt + (i >> 5)] |= 1 << (i & 31);
  return scale;
}

/** The packed form of `v` (what the `q` column holds). */
export function packVector(v: Float32Array): Uint8Array {
  const dims = v.length;
  const out = new Uint8Array(packedBytes(dims));
  const words = signWords(dims);
  const bits = new Uint32Array(words);
  const scale = quantizeInto(v, dims, new Int8Array(out.buffer, 0, dims), 0, bits, 0);
  const view = new DataView(out.buffer);
  view.setFloat32(dims, scale, true);
  for (let w = 0; w < words; w++) view.setUint32(dims + 4 + w * 4, bits[w], true);
  return out;
}
