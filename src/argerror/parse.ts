import { isHint, type Hint } from "./vocabulary.js";

export type ParsedError =
  | { kind: "envelope"; fields: string[]; hint: Hint; detail: string }
  | { kind: "opaque"; text: string };

// Field names are snake_case, may carry an index placeholder such as
// citations[i].kind, and CLI rules use kebab-case flag names. An unknown
// field or argument is named as the caller spelt it when that is a plain
// identifier, so capitals occur too (a camelCase JSON typo, `crossSpines`).
const ENVELOPE = /^field=([A-Za-z0-9_.[\]-]+(?:,[A-Za-z0-9_.[\]-]+)*) hint=([a-z_]+): ([\s\S]*)$/;

/**
 * Reads an error string the way an MCP agent or CLI wrapper should: an
 * envelope yields its parts, anything else (a sentinel such as "not found: …",
 * an SDK protocol error, a hint from a newer server) is opaque. Never throws.
 */
export function parse(text: unknown): ParsedError {
  if (typeof text !== "string") return { kind: "opaque", text: safeString(text) };
  const m = ENVELOPE.exec(text);
  if (!m || !isHint(m[2]!)) return { kind: "opaque", text };
  return { kind: "envelope", fields: m[1]!.split(","), hint: m[2] as Hint, detail: m[3]! };
}

function safeString(v: unknown): string {
  try {
    return String(v);
  } catch {
    return "[unprintable]";
  }
}
