import type { FakeCollection, StoredPoint } from "./collection.js";
import { badRequest } from "./fake-error.js";
import { canonicalId, compareIds, idKey } from "./point-id.js";
import { valuesAt } from "./payload-path.js";

type Json = Record<string, unknown>;

const orderValue = (v: unknown): number | undefined =>
  typeof v === "number" ? v : typeof v === "string" && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : undefined;

/**
 * Scroll by `order_by`: needs a range-capable index, refuses `offset`, starts at `start_from`
 * (inclusive), lists a point once per value it holds, and never returns `next_page_offset`.
 */
function scrollOrdered(c: FakeCollection, body: Json, points: StoredPoint[]): Json {
  const ob = typeof body.order_by === "string" ? { key: body.order_by } : (body.order_by as Json);
  const key = ob.key as string;
  if (!c.hasRangeIndex(key)) {
    throw badRequest(
      `No range index for \`order_by\` key: \`${key}\`. Please create one to use \`order_by\`. ` +
        "Check https://qdrant.tech/documentation/concepts/indexing/#payload-index to see which payload schemas support Range conditions",
    );
  }
  if (body.offset !== undefined && body.offset !== null) {
    throw badRequest(
      "Cannot use an `offset` when using `order_by`. The alternative for paging is to use `order_by.start_from` " +
        "and a filter to exclude the IDs that you've already seen for the `order_by.key` value",
    );
  }
  const desc = ob.direction === "desc";
  const start = ob.start_from === undefined || ob.start_from === null ? undefined : orderValue(ob.start_from);
  const rows = points.flatMap((p) =>
    valuesAt(p.payload, key)
      .map((v) => orderValue(v))
      .filter((v): v is number => v !== undefined)
      .map((v) => ({ p, v })),
  );
  const kept = rows.filter((r) => start === undefined || (desc ? r.v <= start : r.v >= start));
  kept.sort((a, b) => (desc ? b.v - a.v : a.v - b.v) || compareIds(a.p.id, b.p.id));
  const limit = (body.limit as number | undefined) ?? 10;
  return {
    points: kept.slice(0, limit).map((r) => ({ ...c.record(r.p, body.with_payload, body.with_vector, true), order_value: r.v })),
    next_page_offset: null,
  };
}

export function scroll(c: FakeCollection, body: Json): Json {
  const filter = body.filter as Json | undefined;
  c.checkFilter(filter, "retrieve");
  const points = c.sorted(filter);
  if (body.order_by !== undefined && body.order_by !== null) return scrollOrdered(c, body, points);
  const limit = (body.limit as number | undefined) ?? 10;
  let from = 0;
  if (body.offset !== undefined && body.offset !== null) {
    const offset = canonicalId(body.offset);
    from = points.findIndex((p) => compareIds(p.id, offset) >= 0);
    if (from < 0) from = points.length;
  }
  const page = points.slice(from, from + limit);
  const next = points[from + limit];
  return {
    points: page.map((p) => c.record(p, body.with_payload, body.with_vector, true)),
    next_page_offset: next ? next.id : null,
  };
}

export function count(c: FakeCollection, body: Json): Json {
  const filter = body.filter as Json | undefined;
  c.checkFilter(filter, "retrieve");
  return { count: c.sorted(filter).length };
}

export function retrieve(c: FakeCollection, body: Json): Json[] {
  const seen = new Set<string>();
  const out: Json[] = [];
  for (const raw of body.ids as unknown[]) {
    const id = canonicalId(raw);
    const p = c.get(id);
    if (!p || seen.has(idKey(id))) continue;
    seen.add(idKey(id));
    out.push(c.record(p, body.with_payload, body.with_vector, true));
  }
  return out;
}
