import type * as Usearch from "usearch";
import type { Matches } from "./embedded/vector/usearch.js";

/** The rows of one call, laid end to end; reused, as a call gathers a few megabytes. */
let gathered = new Float32Array(0);

/** Products asked for at first per query: most rows lie at or under a floor worth asking about. */
const FIRST_ASK = 64;

/** Whether the last call needed more than the first ask: then the next asks for every product at once. */
let lastWide = false;

/**
 * Every inner product of each of `rows` with each of `queries` (vectors of
 * one length) that is above `floor`, as `out[r * queries.length + i]`; a
 * product at or under it may read as `floor` instead. They are computed by
 * usearch's SIMD exact search, which the vector index also uses: it sums in
 * float32, so a product may differ from a float64 sum in its last places
 * (at most about length × 2⁻²⁴ times the vectors' norms), and it is many
 * times as fast as a loop in JS. The library is loaded on first use, so a
 * process that never ranks (a client verb) never loads it; where it cannot
 * load (a platform without its prebuilt binary, which only a Qdrant-backed
 * server can run on), the products are summed in JS.
 */
export async function innerProductsAbove(rows: readonly Float32Array[], queries: readonly Float32Array[], floor: number): Promise<Float64Array> {
  const n = rows.length;
  const q = queries.length;
  const out = new Float64Array(n * q);
  if (n === 0 || q === 0) return out;
  const usearch = await library();
  // Nothing below awaits, so the gathered buffer is this call's alone.
  const dim = queries[0]!.length;
  if (usearch === null) {
    for (let r = 0; r < n; r++) for (let i = 0; i < q; i++) out[r * q + i] = Math.max(floor, dot(rows[r]!, queries[i]!));
    return out;
  }
  if (gathered.length < n * dim) gathered = new Float32Array(Math.ceil(n * 1.25) * dim);
  rows.forEach((v, r) => gathered.set(v, r * dim));
  // The native side reads each array from the start of its buffer, so the queries get one of their own.
  const asked = new Float32Array(q * dim);
  queries.forEach((v, i) => asked.set(v, i * dim));
  // The library answers the best k products of each query, and keeping them
  // in order costs more than computing them once k nears n: ask for a few,
  // and for all only when the last one answered is still above the floor
  // (or the last call's was: the vectors of one store are alike from call to call).
  out.fill(floor);
  for (let k = lastWide ? n : Math.min(n, FIRST_ASK); ; k = n) {
    const found = usearch.exactSearch(gathered.subarray(0, n * dim), asked, dim, k, usearch.MetricKind.IP, 1);
    // One query comes back as Matches, several as BatchMatches: both hold k (key, 1 - product) pairs per query, best first, in query order.
    const { keys, distances } = found as unknown as Pick<Matches, "keys" | "distances">;
    let short = false;
    for (let i = 0; i < q; i++) {
      for (let j = 0; j < k; j++) {
        const product = 1 - distances[i * k + j]!;
        if (product > floor) out[Number(keys[i * k + j]!) * q + i] = product;
      }
      if (1 - distances[i * k + k - 1]! > floor) short = true;
    }
    if (!short || k === n) {
      lastWide = k > FIRST_ASK;
      return out;
    }
  }
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
