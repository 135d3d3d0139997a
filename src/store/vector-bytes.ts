/**
 * A stored vector's bytes as numbers: float32 in the machine's byte order,
 * the way the embedded store keeps a vector and an export carries it.
 */
export function toFloat32(buf: Uint8Array): Float32Array {
  // Copy: the bytes may share a pooled ArrayBuffer at an unaligned offset.
  const out = new Float32Array(buf.byteLength / 4);
  new Uint8Array(out.buffer).set(buf);
  return out;
}
