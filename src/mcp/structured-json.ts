import { deepFreeze } from "../model/deep-freeze.js";

/** A tool result's structured part as the answer carries it twice: the JSON mirror line and `structuredContent`. */
export type StructuredJson = { json: string; structuredContent: Record<string, unknown> };

/** Kept per frozen result; it goes when the result does (a point read's view goes with its record). */
const kept = new WeakMap<object, StructuredJson>();

/**
 * The JSON mirror of a tool's structured result, and the result as that JSON
 * reads back (so `structuredContent` holds exactly what the mirror says). A
 * frozen result cannot change, and the core hands out one per stored
 * version of a record (see pointView), so it is serialized once and its
 * read-back is frozen and shared: the transport serializes that object as it
 * is (createMcpServer answers tools/call past the SDK's copying check).
 * Anything else is serialized on every call.
 */
export function structuredJson(structured: object): StructuredJson {
  if (!Object.isFrozen(structured)) return readBack(JSON.stringify(structured));
  let s = kept.get(structured);
  if (s === undefined) {
    const fresh = readBack(JSON.stringify(structured));
    s = { json: fresh.json, structuredContent: deepFreeze(fresh.structuredContent) };
    kept.set(structured, s);
  }
  return s;
}

function readBack(json: string): StructuredJson {
  return { json, structuredContent: JSON.parse(json) as Record<string, unknown> };
}
