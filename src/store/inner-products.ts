import { endianness } from "node:os";
import type * as Usearch from "usearch";
import type { Matches } from "./embedded/vector/usearch.js";
import { codeDot, type QuantizedVector } from "./quantized-vector.js";

const LITTLE_ENDIAN = endianness() === "LE";

/** The rows of one call, laid end to end; reused, as a call gathers about a megabyte. */
let gathered = new Int8Array(0);

/**
 * Every inner product of each of `rows` with each of `queries` (vectors of
 * one length, quantized), as `out[r * queries.length + i]`: the exact sum
 * of their codes' products times both scales. The sums are computed by
 * usearch's SIMD exact search, which the vector index also uses, many times
 * as fast as a loop in JS; they are integers under 2²⁴ up to 1,040
 * dimensions, so the library's float32 sum holds them exactly and the loop
 * it falls back on gives the same. The rows are what the library searches
 * with and the few queries what it searches, each row asking for all of
 * them: every product comes back, at a cost that does not depend on how
 * many of them are large. The library is loaded on first use, so a process
 * that never ranks (a client verb) never loads it; where it cannot load (a
 * platform without its prebuilt binary, which only a Qdrant-backed server
 * can run on), the sums are taken in JS.
 */
export async function innerProducts(rows: readonly QuantizedVector[], queries: readonly QuantizedVector[]): Promise<Float64Array> {
  const n = rows.length;
  const q = queries.length;
  const out = new Float64Array(n * q);
  if (n === 0 || q === 0) return out;
  const usearch = await library();
  // Nothing below awaits, so the gathered buffer is this call's alone.
  const dim = queries[0]!.codes.length;
  if (usearch === null) {
    for (let r = 0; r < n; r++) {
      for (let i = 0; i < q; i++) out[r * q + i] = codeDot(rows[r]!.codes, queries[i]!.codes) * rows[r]!.scale * queries[i]!.scale;
    }
    return out;
  }
  if (gathered.length < n * dim) gathered = new Int8Array(Math.ceil(n * 1.25) * dim);
  rows.forEach((v, r) => gathered.set(v.codes, r * dim));
  // The native side reads each array from the start of its buffer, so the queries get one of their own.
  const searched = new Int8Array(q * dim);
  queries.forEach((v, i) => searched.set(v.codes, i * dim));
  const found = usearch.exactSearch(searched, gathered.subarray(0, n * dim), dim, q, usearch.MetricKind.IP, 1);
  // One row comes back as Matches, several as BatchMatches: both hold q (query, 1 - sum) pairs per row, in row order.
  const { keys, distances } = found as unknown as Pick<Matches, "keys" | "distances">;
  // A key is a query's index, under 2³²: read as the low half of its 64-bit
  // word, it costs no BigInt per product (there are thousands per search).
  // Scales read once each: a row's q products share its scale, and the
  // products' order of multiplication stays the loop fallback's.
  const queryScales = new Float64Array(q);
  for (let i = 0; i < q; i++) queryScales[i] = queries[i]!.scale;
  const low = LITTLE_ENDIAN ? new Uint32Array(keys.buffer, keys.byteOffset, keys.length * 2) : undefined;
  for (let r = 0, at = 0; r < n; r++) {
    const scale = rows[r]!.scale;
    const base = r * q;
    for (let j = 0; j < q; j++, at++) {
      const i = low !== undefined ? low[2 * at]! : Number(keys[at]!);
      out[base + i] = (1 - distances[at]!) * scale * queryScales[i]!;
    }
  }
  return out;
}

let loaded: Promise<typeof Usearch | null> | undefined;

function library(): Promise<typeof Usearch | null> {
  loaded ??= import("./embedded/vector/usearch.js").then(
    (m) => m.usearch,
    () => null,
  );
  return loaded;
}

/** A float64 sum of the products of two vectors' common length. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}
