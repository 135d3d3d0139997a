import { canonicalId, idKey, type PointId } from "./point-id.js";
import { rawValuesAt, valuesAt, type Payload } from "./payload-path.js";

type Json = Record<string, unknown>;

/** What a filter is evaluated against: one stored point. */
export interface FilterTarget {
  readonly id: PointId;
  readonly payload: Payload;
  readonly vectorNames: ReadonlySet<string>;
}

const asList = (v: unknown): Json[] => (v === undefined || v === null ? [] : Array.isArray(v) ? (v as Json[]) : [v as Json]);

const WORD = /[\p{L}\p{N}]+/gu;
const words = (s: string): string[] => s.toLowerCase().match(WORD) ?? [];

function datetimeMs(v: unknown): number | undefined {
  if (typeof v !== "string") return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

function inRange(value: unknown, range: Json): boolean {
  const bounds = ["gt", "gte", "lt", "lte"].filter((b) => range[b] !== undefined && range[b] !== null);
  const isDatetime = bounds.some((b) => typeof range[b] === "string");
  const n = isDatetime ? datetimeMs(value) : typeof value === "number" ? value : undefined;
  if (n === undefined) return false;
  const bound = (b: string) => (isDatetime ? datetimeMs(range[b])! : (range[b] as number));
  return bounds.every((b) =>
    b === "gt" ? n > bound(b) : b === "gte" ? n >= bound(b) : b === "lt" ? n < bound(b) : n <= bound(b),
  );
}

function matches(values: unknown[], match: Json): boolean {
  if ("value" in match) return values.some((v) => v === match.value);
  if ("any" in match) return values.some((v) => (match.any as unknown[]).includes(v));
  if ("except" in match) {
    // A point without the key passes `except`: nothing it holds is in the excluded list.
    if (values.length === 0) return true;
    return values.some((v) => !(match.except as unknown[]).includes(v));
  }
  // Text conditions behave like a word-tokenized full-text index: every query word must occur.
  const texts = values.filter((v): v is string => typeof v === "string");
  if ("text" in match) {
    const want = words(match.text as string);
    return texts.some((t) => {
      const have = new Set(words(t));
      return want.every((w) => have.has(w));
    });
  }
  if ("text_any" in match) {
    const want = words(match.text_any as string);
    return texts.some((t) => {
      const have = new Set(words(t));
      return want.some((w) => have.has(w));
    });
  }
  if ("phrase" in match) {
    const want = words(match.phrase as string).join(" ");
    return texts.some((t) => ` ${words(t).join(" ")} `.includes(` ${want} `));
  }
  return false;
}

/** `is_empty`: a missing key, `null` or `[]` is empty; `""` is a value and is not. */
const isEmpty = (payload: Payload, key: string): boolean => valuesAt(payload, key).length === 0;
const isNull = (payload: Payload, key: string): boolean => rawValuesAt(payload, key).some((v) => v === null);

function fieldCondition(t: FilterTarget, c: Json): boolean {
  const key = c.key as string;
  const values = valuesAt(t.payload, key);
  if (c.match && !matches(values, c.match as Json)) return false;
  if (c.range && !values.some((v) => inRange(v, c.range as Json))) return false;
  if (c.values_count) {
    const vc = c.values_count as Json;
    const n = values.length;
    if (!inRange(n, vc)) return false;
  }
  if (typeof c.is_empty === "boolean" && isEmpty(t.payload, key) !== c.is_empty) return false;
  if (typeof c.is_null === "boolean" && isNull(t.payload, key) !== c.is_null) return false;
  return true;
}

function condition(t: FilterTarget, c: Json): boolean {
  if (typeof c.key === "string") return fieldCondition(t, c);
  if (c.is_empty) return isEmpty(t.payload, (c.is_empty as Json).key as string);
  if (c.is_null) return isNull(t.payload, (c.is_null as Json).key as string);
  if (c.has_id) {
    const want = new Set((c.has_id as unknown[]).map((id) => idKey(canonicalId(id))));
    return want.has(idKey(t.id));
  }
  if (typeof c.has_vector === "string") return t.vectorNames.has(c.has_vector);
  if (c.nested) {
    const { key, filter } = c.nested as { key: string; filter: Json };
    // Each array element must satisfy the whole inner filter by itself.
    return rawValuesAt(t.payload, key)
      .flatMap((v) => (Array.isArray(v) ? v : []))
      .some(
        (el) =>
          el !== null &&
          typeof el === "object" &&
          matchesFilter({ id: t.id, payload: el as Payload, vectorNames: t.vectorNames }, filter),
      );
  }
  return matchesFilter(t, c);
}

/** Qdrant's boolean algebra: all `must`, no `must_not`, at least one `should` (so `should: []` matches nothing). */
export function matchesFilter(t: FilterTarget, filter: Json | null | undefined): boolean {
  if (!filter) return true;
  if (filter.must !== undefined && filter.must !== null && !asList(filter.must).every((c) => condition(t, c))) return false;
  if (filter.must_not !== undefined && filter.must_not !== null && asList(filter.must_not).some((c) => condition(t, c))) {
    return false;
  }
  if (filter.should !== undefined && filter.should !== null && !asList(filter.should).some((c) => condition(t, c))) {
    return false;
  }
  if (filter.min_should) {
    const ms = filter.min_should as { conditions: Json[]; min_count: number };
    if (ms.conditions.filter((c) => condition(t, c)).length < ms.min_count) return false;
  }
  return true;
}

/** The payload index types that can serve a condition; an empty list means "any index". */
export interface KeyNeed {
  readonly key: string;
  readonly types: readonly string[];
}

function needsOf(c: Json): string[] {
  const m = c.match as Json | undefined;
  if (m) {
    const sample = "value" in m ? m.value : "any" in m ? (m.any as unknown[])[0] : "except" in m ? (m.except as unknown[])[0] : "";
    if ("text" in m || "text_any" in m || "phrase" in m) return ["text"];
    if (typeof sample === "boolean") return ["bool"];
    if (typeof sample === "number") return ["integer"];
    return ["keyword", "uuid"];
  }
  if (c.range) {
    const r = c.range as Json;
    return ["gt", "gte", "lt", "lte"].some((b) => typeof r[b] === "string") ? ["datetime"] : ["integer", "float"];
  }
  return [];
}

/** Every payload key a filter touches, with the index types that could answer it (strict mode). */
export function filterKeyNeeds(filter: Json | null | undefined, prefix = ""): KeyNeed[] {
  if (!filter) return [];
  const out: KeyNeed[] = [];
  const visit = (c: Json) => {
    if (typeof c.key === "string") out.push({ key: prefix + c.key, types: needsOf(c) });
    else if (c.is_empty) out.push({ key: prefix + ((c.is_empty as Json).key as string), types: [] });
    else if (c.is_null) out.push({ key: prefix + ((c.is_null as Json).key as string), types: [] });
    else if (c.nested) {
      const { key, filter: inner } = c.nested as { key: string; filter: Json };
      out.push(...filterKeyNeeds(inner, `${prefix}${key}[].`));
    } else if (!c.has_id && c.has_vector === undefined) out.push(...filterKeyNeeds(c, prefix));
  };
  for (const clause of ["must", "should", "must_not"]) asList(filter[clause]).forEach(visit);
  if (filter.min_should) (filter.min_should as { conditions: Json[] }).conditions.forEach(visit);
  return out;
}
