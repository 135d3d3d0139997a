/**
 * Payload keys are paths: `a.b` descends into objects, `a[].b` into every element of an array.
 * Arrays met on the way (or at the end) are walked implicitly too, as Qdrant does for filters.
 */
export type Payload = Record<string, unknown>;

interface Segment {
  readonly name: string;
  readonly each: boolean;
}

export function parseKey(key: string): Segment[] {
  return key.split(".").map((part) => (part.endsWith("[]") ? { name: part.slice(0, -2), each: true } : { name: part, each: false }));
}

/** The raw values a path reaches (arrays at the leaf are not flattened). */
export function rawValuesAt(payload: Payload, key: string): unknown[] {
  let current: unknown[] = [payload];
  for (const seg of parseKey(key)) {
    const next: unknown[] = [];
    for (const node of current) {
      for (const obj of Array.isArray(node) ? node : [node]) {
        if (obj === null || typeof obj !== "object" || Array.isArray(obj)) continue;
        if (!Object.prototype.hasOwnProperty.call(obj, seg.name)) continue;
        const v = (obj as Payload)[seg.name];
        if (seg.each && Array.isArray(v)) next.push(...v);
        else next.push(v);
      }
    }
    current = next;
  }
  return current;
}

/** The comparable values at a path: leaf arrays flattened, nulls dropped. */
export function valuesAt(payload: Payload, key: string): unknown[] {
  return rawValuesAt(payload, key)
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .filter((v) => v !== null && v !== undefined);
}

/** Writes `value` at a dotted object path, creating objects as needed (set_payload with `key`). */
export function setAtPath(payload: Payload, key: string, value: Payload): void {
  let node: Payload = payload;
  for (const seg of parseKey(key)) {
    const existing = node[seg.name];
    if (existing === null || typeof existing !== "object" || Array.isArray(existing)) node[seg.name] = {};
    node = node[seg.name] as Payload;
  }
  Object.assign(node, value);
}

/** Removes a dotted path; missing paths are ignored, as Qdrant's delete_payload does. */
export function deleteAtPath(payload: Payload, key: string): void {
  const segs = parseKey(key);
  let node: unknown = payload;
  for (const seg of segs.slice(0, -1)) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    node = (node as Payload)[seg.name];
  }
  if (node !== null && typeof node === "object" && !Array.isArray(node)) delete (node as Payload)[segs.at(-1)!.name];
}

/** Projects a payload to the listed paths (with_payload include). */
export function pickPaths(payload: Payload, keys: readonly string[]): Payload {
  const out: Payload = {};
  for (const key of keys) {
    const segs = key.split(".");
    let src: unknown = payload;
    let ok = true;
    for (const s of segs) {
      if (src === null || typeof src !== "object" || Array.isArray(src) || !(s in (src as Payload))) {
        ok = false;
        break;
      }
      src = (src as Payload)[s];
    }
    if (!ok) continue;
    let dst = out;
    for (const s of segs.slice(0, -1)) {
      if (typeof dst[s] !== "object" || dst[s] === null) dst[s] = {};
      dst = dst[s] as Payload;
    }
    dst[segs.at(-1)!] = structuredClone(src);
  }
  return out;
}

/** Removes the listed paths from a copy (with_payload exclude). */
export function omitPaths(payload: Payload, keys: readonly string[]): Payload {
  const out = structuredClone(payload);
  for (const key of keys) deleteAtPath(out, key);
  return out;
}
