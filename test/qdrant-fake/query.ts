import { DEFAULT_VECTOR, isSparse, type FakeCollection, type SparseVector, type StoredPoint } from "./collection.js";
import { badRequest, wrongInput } from "./fake-error.js";
import { matchesFilter } from "./filter.js";
import { canonicalId, compareIds, idKey } from "./point-id.js";

type Json = Record<string, unknown>;

interface Scored {
  readonly p: StoredPoint;
  readonly score: number;
}

/** Qdrant's default RRF constant: a point ranked at 0-based position i scores 1 / (i + k). */
export const QDRANT_RRF_K = 2;

const dot = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

/**
 * BM25-style inverse document frequency as Qdrant's `idf` modifier computes it, over the points
 * that hold this sparse vector: ln(((N - n + 0.5) / (n + 0.5)) + 1).
 */
export function idf(c: FakeCollection, using: string, index: number): number {
  let total = 0;
  let withTerm = 0;
  for (const p of c.points.values()) {
    const v = p.vectors.get(using);
    if (!v || !isSparse(v)) continue;
    total += 1;
    const at = v.indices.indexOf(index);
    if (at >= 0 && v.values[at] !== 0) withTerm += 1;
  }
  return Math.log((total - withTerm + 0.5) / (withTerm + 0.5) + 1);
}

function sparseScore(c: FakeCollection, using: string, q: SparseVector, doc: SparseVector, weights: Map<number, number>): number | undefined {
  let score = 0;
  let overlap = false;
  q.indices.forEach((index, i) => {
    const at = doc.indices.indexOf(index);
    if (at < 0) return;
    overlap = true;
    score += q.values[i]! * (weights.get(index) ?? 1) * doc.values[at]!;
  });
  // Sparse search only ever returns points sharing at least one term with the query.
  return overlap ? score : undefined;
}

/** Resolve the query vector: literal dense, literal sparse, or another point's stored vector. */
function queryVector(c: FakeCollection, input: unknown, using: string): number[] | SparseVector {
  if (Array.isArray(input)) {
    if (input.length > 0 && Array.isArray(input[0])) throw badRequest("multivector queries are not supported by the fake");
    return c.parseVectors({ [using]: input }).get(using)!;
  }
  if (input && typeof input === "object" && Array.isArray((input as Json).indices)) {
    return c.parseVectors({ [using]: input }).get(using)!;
  }
  if (typeof input === "string" || typeof input === "number") {
    const p = c.get(canonicalId(input));
    const v = p?.vectors.get(using);
    if (!v) throw wrongInput(`No point with id ${String(input)} found`);
    return v;
  }
  throw badRequest("query kind is not supported by the fake (nearest dense/sparse, point id, rrf fusion only)");
}

function nearest(c: FakeCollection, candidates: StoredPoint[], input: unknown, using: string): Scored[] {
  const q = queryVector(c, input, using);
  const out: Scored[] = [];
  if (isSparse(q)) {
    const modifier = c.sparse.get(using)?.modifier;
    const weights = new Map<number, number>();
    if (modifier === "idf") for (const i of q.indices) weights.set(i, idf(c, using, i));
    for (const p of candidates) {
      const v = p.vectors.get(using);
      if (!v || !isSparse(v)) continue;
      const s = sparseScore(c, using, q, v, weights);
      if (s !== undefined) out.push({ p, score: s });
    }
  } else {
    const distance = c.dense.get(using)?.distance ?? "Cosine";
    for (const p of candidates) {
      const v = p.vectors.get(using);
      if (!v || isSparse(v)) continue;
      // Stored and query vectors are already unit length for Cosine, so the dot product is the cosine.
      const score =
        distance === "Euclid" ? -Math.hypot(...v.map((x, i) => x - q[i]!)) : distance === "Manhattan"
          ? -v.reduce((s, x, i) => s + Math.abs(x - q[i]!), 0)
          : dot(v, q);
      out.push({ p, score });
    }
  }
  return out.sort((a, b) => b.score - a.score || compareIds(a.p.id, b.p.id));
}

function rrf(lists: Scored[][], k: number, weights?: number[]): Scored[] {
  const acc = new Map<string, { p: StoredPoint; score: number }>();
  lists.forEach((list, li) => {
    const w = weights?.[li] ?? 1;
    list.forEach((s, pos) => {
      const entry = acc.get(idKey(s.p.id)) ?? { p: s.p, score: 0 };
      entry.score += 1 / ((pos + 1) / w + k - 1);
      acc.set(idKey(s.p.id), entry);
    });
  });
  return [...acc.values()].sort((a, b) => b.score - a.score || compareIds(a.p.id, b.p.id));
}

function passesThreshold(s: Scored, threshold: unknown): boolean {
  return typeof threshold !== "number" || s.score >= threshold;
}

/**
 * One level of the Query API: run the prefetches (each inheriting the outer filter), then score
 * their union (or the whole filtered collection) with this level's query.
 */
function run(c: FakeCollection, req: Json, outerFilter: Json | undefined): Scored[] {
  const filter = req.filter as Json | undefined;
  const applies = (p: StoredPoint) => matchesFilter(c.target(p), outerFilter) && matchesFilter(c.target(p), filter);
  const mergedFilter = outerFilter && filter ? { must: [outerFilter, filter] } : (outerFilter ?? filter);
  const prefetches = req.prefetch === undefined || req.prefetch === null ? [] : Array.isArray(req.prefetch) ? req.prefetch : [req.prefetch];
  const sub = prefetches.map((pf) => run(c, pf as Json, mergedFilter));
  const limit = (req.limit as number | undefined) ?? 10;
  const offset = (req.offset as number | undefined) ?? 0;
  const using = (req.using as string | undefined) ?? DEFAULT_VECTOR;
  const q = req.query as unknown;
  let scored: Scored[];
  if (q && typeof q === "object" && !Array.isArray(q) && ("fusion" in (q as Json) || "rrf" in (q as Json))) {
    const qq = q as Json;
    if (qq.fusion !== undefined && qq.fusion !== "rrf") throw badRequest("only rrf fusion is supported by the fake");
    if (sub.length === 0) throw badRequest("Fusion queries require prefetches");
    const params = (qq.rrf as Json | undefined) ?? {};
    scored = rrf(sub, (params.k as number | null | undefined) ?? QDRANT_RRF_K, params.weights as number[] | undefined);
  } else if (q === undefined || q === null) {
    const pool = sub.length > 0 ? dedupe(sub.flat()) : c.sorted().filter(applies);
    scored = pool.map((s) => ("score" in s ? s : { p: s, score: 0 })).sort((a, b) => compareIds(a.p.id, b.p.id));
  } else {
    const input = q && typeof q === "object" && "nearest" in (q as Json) ? (q as Json).nearest : q;
    const pool = sub.length > 0 ? dedupe(sub.flat()).map((s) => s.p) : c.sorted().filter(applies);
    scored = nearest(c, pool, input, using);
  }
  return scored.filter((s) => passesThreshold(s, req.score_threshold)).slice(offset, offset + limit);
}

function dedupe(list: Scored[]): Scored[] {
  const seen = new Map<string, Scored>();
  for (const s of list) if (!seen.has(idKey(s.p.id))) seen.set(idKey(s.p.id), s);
  return [...seen.values()];
}

function checkFilters(c: FakeCollection, req: Json): void {
  c.checkFilter(req.filter as Json | undefined, "retrieve");
  const prefetches = req.prefetch === undefined || req.prefetch === null ? [] : Array.isArray(req.prefetch) ? req.prefetch : [req.prefetch];
  for (const pf of prefetches) checkFilters(c, pf as Json);
}

export function query(c: FakeCollection, body: Json): Json {
  checkFilters(c, body);
  const points = run(c, body, undefined).map((s) => ({
    ...c.record(s.p, body.with_payload, body.with_vector, false),
    version: 0,
    score: s.score,
  }));
  return { points };
}
