/**
 * Payload values are plain JSON (they come out of JSON.parse), so comparing
 * them needs none of a string round-trip's generality, and a sweep compares
 * every record (freezing them is in model/deep-freeze.ts).
 */

/** Whether two values serialize to the same JSON (object key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return JSON.stringify(a) === JSON.stringify(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameJson(x, bb[i]));
  }
  const plain = (o: object) => Object.getPrototypeOf(o) === Object.prototype;
  if (!plain(a) || !plain(b)) return JSON.stringify(a) === JSON.stringify(b);
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // JSON drops undefined-valued keys, so they do not count here either.
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(bo, k) && sameJson(ao[k], bo[k]));
}
