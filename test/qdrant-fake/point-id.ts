import { wrongInput } from "./fake-error.js";

export type PointId = number | string;

const HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SIMPLE = /^[0-9a-f]{32}$/i;

/** Qdrant ids are unsigned integers or UUIDs, reported back lower-case and hyphenated. */
export function canonicalId(raw: unknown): PointId {
  if (typeof raw === "number" && Number.isInteger(raw) && raw >= 0) return raw;
  if (typeof raw === "bigint" && raw >= 0n) return Number(raw);
  if (typeof raw === "string") {
    const s = raw.trim().replace(/^urn:uuid:/i, "").replace(/^\{(.*)\}$/, "$1");
    if (HYPHENATED.test(s)) return s.toLowerCase();
    if (SIMPLE.test(s)) {
      const h = s.toLowerCase();
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    // A numeric string in a path segment (`GET /points/42`) names the integer id.
    if (/^\d+$/.test(s)) return Number(s);
  }
  throw wrongInput(`Unable to parse point id`);
}

/** Map key that keeps 7 and "7"-looking UUIDs apart. */
export const idKey = (id: PointId): string => (typeof id === "number" ? `n:${id}` : `u:${id}`);

/** Qdrant orders integer ids before UUIDs, each ascending (UUIDs by their 128-bit value). */
export function compareIds(a: PointId, b: PointId): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number") return -1;
  if (typeof b === "number") return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
