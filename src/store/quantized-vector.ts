/**
 * A vector as signed 8-bit codes and the one factor that turns them back
 * into its values: a quarter of a float32 vector's bytes. The soft term
 * matches' products are bound by how fast the word vectors stream through
 * memory, so four times fewer bytes made them about four times as fast.
 */
export type QuantizedVector = { readonly codes: Int8Array; readonly scale: number };

/** The largest code: codes are symmetric, so a vector and its negation quantize alike. */
const CODE_MAX = 127;

/**
 * Each value rounded to the nearest multiple of the vector's largest
 * magnitude over 127. A product of two 512-d unit vectors so quantized
 * differs from the float one by a few thousandths at most, far under what
 * separates a near word from a far one (test/quantized-vector.test.ts). A
 * vector with no finite largest magnitude (all zero, or holding a NaN or an
 * infinity) quantizes to zeros, whose every product is 0.
 */
export function quantize(v: Float32Array): QuantizedVector {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const codes = new Int8Array(v.length);
  if (!(max > 0 && Number.isFinite(max))) return { codes, scale: 0 };
  const k = CODE_MAX / max;
  // Halves round away from zero (Math.round alone rounds them up), so a negated vector's codes are the negated codes.
  for (let i = 0; i < v.length; i++) codes[i] = v[i]! < 0 ? -Math.round(-v[i]! * k) : Math.round(v[i]! * k);
  return { codes, scale: max / CODE_MAX };
}

/** The exact integer sum of the products of two code vectors' common length. */
export function codeDot(a: Int8Array, b: Int8Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}
