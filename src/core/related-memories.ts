import { type RecordQuery, GATE_ON, citationKey } from "../store/index.js";
import type { RelatedArgs } from "./args.js";
import { enforceBudget } from "./budget.js";
import { nowSeconds, type CoreDeps } from "./deps.js";
import type { MemoryRecord } from "../model/record.js";
import { resolveReadable } from "./resolve.js";
import type { Subject } from "../model/subject.js";
import { checkCount, requireString } from "./validate.js";
import { compactView, fullView, type MemoryView } from "./view.js";

export type RelatedEdge =
  | { type: "supersession"; direction: "successor" | "predecessor"; depth: number }
  | { type: "citation"; shared_citations: { kind: string; ref: string }[] }
  | { type: "tag"; shared_tags: { tag: string; weight: number }[]; tag_weight: number }
  | { type: "vector"; score: number };

export type RelatedResult = { anchor: MemoryView; related: { memory: MemoryView; edges: RelatedEdge[] }[]; truncated: boolean };

/** Bounds of the neighbourhood; each keeps one probe cheap and the answer small. */
const CHAIN_DEPTH = 8;
const CHAIN_MEMBERS = 16;
const PROBES = 16;
const PROBE_IDS = 64;
const EDGE_CAP = 8;
const TOTAL_CEILING = 64;
const EDGE_ORDER = ["supersession", "citation", "tag", "vector"] as const;

/**
 * The anchor's neighbourhood along four kinds of edge, each sub-query under
 * the caller's own read filter and recall gate (the chain walk relaxes only
 * the superseded condition, since a chain is made of superseded records).
 */
export async function relatedMemories(deps: CoreDeps, subject: Subject, a: RelatedArgs): Promise<RelatedResult> {
  const input = requireString("id", a.id);
  const k = checkCount("k", a.k, deps.limits) || deps.limits.relatedDefaultK;
  const anchor = await resolveReadable(deps, subject, input);
  const visible: RecordQuery = { subject, gate: GATE_ON, now: nowSeconds(deps), excludeIds: [anchor.id] };
  const entries = new Map<string, { record: MemoryRecord; edges: RelatedEdge[] }>();
  const add = (record: MemoryRecord, edge: RelatedEdge) => {
    const e = entries.get(record.id) ?? { record, edges: [] };
    e.edges.push(edge);
    entries.set(record.id, e);
  };

  // Supersession: forward along superseded_by, backward along supersedes.
  const chainQuery: RecordQuery = { ...visible, gate: { ...GATE_ON, superseded: true } };
  let members = 0;
  const walk = async (from: MemoryRecord, direction: "successor" | "predecessor") => {
    let frontier = [from];
    for (let depth = 1; depth <= CHAIN_DEPTH && frontier.length > 0 && members < CHAIN_MEMBERS; depth++) {
      const next: MemoryRecord[] = [];
      for (const r of frontier) {
        const ids = direction === "successor" ? (r.superseded_by ? [r.superseded_by] : []) : r.supersedes;
        for (const id of ids) {
          if (members >= CHAIN_MEMBERS || id === anchor.id || entries.has(id)) continue;
          const rec = (await deps.store.list({ ...chainQuery, ids: [id] }, { order: "desc", limit: 1 })).records[0];
          if (!rec) continue;
          add(rec, { type: "supersession", direction, depth });
          members++;
          next.push(rec);
        }
      }
      frontier = next;
    }
  };
  await walk(anchor, "successor");
  await walk(anchor, "predecessor");

  // Citation: records citing the same kind+ref.
  const pairs = [...new Map(anchor.citations.map((c) => [citationKey(c.kind, c.ref), c])).values()].slice(0, PROBES);
  const citeHits = new Map<string, { record: MemoryRecord; shared: { kind: string; ref: string }[] }>();
  for (const c of pairs) {
    const { records } = await deps.store.list({ ...visible, citation: citationKey(c.kind, c.ref) }, { order: "desc", limit: PROBE_IDS });
    for (const r of records) {
      const h = citeHits.get(r.id) ?? { record: r, shared: [] };
      h.shared.push({ kind: c.kind, ref: c.ref });
      citeHits.set(r.id, h);
    }
  }
  [...citeHits.values()]
    .sort((x, y) => y.shared.length - x.shared.length || cmp(x.record.id, y.record.id))
    .slice(0, EDGE_CAP)
    .forEach((h) => add(h.record, { type: "citation", shared_citations: h.shared }));

  // Tag: rare shared tags weigh more; a tag on more than half the records says nothing.
  if (anchor.tags.length > 0) {
    const n = await deps.store.count({ ...visible, excludeIds: undefined });
    const df = await deps.store.tagCounts({ ...visible, excludeIds: undefined });
    const rare = [...new Set(anchor.tags)]
      .map((tag) => ({ tag, df: df.get(tag) ?? 0 }))
      .filter((t) => t.df > 0 && 2 * t.df <= n)
      .sort((x, y) => x.df - y.df || cmp(x.tag, y.tag))
      .slice(0, PROBES);
    const tagHits = new Map<string, { record: MemoryRecord; shared: { tag: string; weight: number }[] }>();
    for (const t of rare) {
      const weight = Math.log(n / t.df);
      const { records } = await deps.store.list({ ...visible, tags: [t.tag] }, { order: "desc", limit: PROBE_IDS });
      for (const r of records) {
        const h = tagHits.get(r.id) ?? { record: r, shared: [] };
        h.shared.push({ tag: t.tag, weight });
        tagHits.set(r.id, h);
      }
    }
    const sum = (h: { shared: { weight: number }[] }) => h.shared.reduce((s, x) => s + x.weight, 0);
    [...tagHits.values()]
      .sort((x, y) => sum(y) - sum(x) || cmp(x.record.id, y.record.id))
      .slice(0, EDGE_CAP)
      .forEach((h) => add(h.record, { type: "tag", shared_tags: h.shared, tag_weight: sum(h) }));
  }

  // Vector: nearest neighbours by meaning; k widens only this edge.
  let truncated = false;
  const vector = await deps.store.vectorOf(anchor.id);
  if (vector) {
    const hits = (await deps.store.search(visible, vector, "", k)).sort((x, y) => y.score - x.score || cmp(x.record.id, y.record.id)).slice(0, k);
    for (const h of hits) {
      if (!entries.has(h.record.id) && entries.size >= TOTAL_CEILING) {
        truncated = true;
        continue;
      }
      add(h.record, { type: "vector", score: h.score });
    }
  }

  const view = (r: MemoryRecord) => (a.full ? fullView(r) : compactView(r, deps.limits.summaryMaxChars));
  const related = [...entries.values()].slice(0, TOTAL_CEILING).map((e) => ({
    memory: view(e.record),
    edges: e.edges.sort((x, y) => EDGE_ORDER.indexOf(x.type) - EDGE_ORDER.indexOf(y.type)),
  }));
  const result: RelatedResult = { anchor: view(anchor), related, truncated };
  enforceBudget(deps, result);
  return result;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
