import { argError } from "../argerror/index.js";
import { readRfc3339 } from "./rfc3339.js";

export type Cursor = { c: string; seen: string[] };

/**
 * Opaque page token: base64url JSON of the oldest created_at emitted and the
 * ids already returned at exactly that instant, so page boundaries never
 * depend on the store's order among equal timestamps.
 */
export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify({ c: c.c, seen: c.seen })).toString("base64url");
}

/**
 * Only what encodeCursor could have written: a creation time as records
 * carry it (RFC3339) and non-blank ids. A token is not signed, so one built
 * by hand in that shape still pages, from where it says; anything else (a
 * word where the time belongs would page from past every record) is refused.
 */
export function decodeCursor(field: string, token: string): Cursor {
  try {
    const v = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    if (
      v &&
      typeof v === "object" &&
      typeof (v as Cursor).c === "string" &&
      readRfc3339((v as Cursor).c) !== undefined &&
      Array.isArray((v as Cursor).seen) &&
      (v as Cursor).seen.every((s) => typeof s === "string" && s.trim() !== "")
    ) {
      return { c: (v as Cursor).c, seen: (v as Cursor).seen };
    }
  } catch {
    // fall through to the envelope
  }
  throw argError(field, "format", `${field} is not a cursor this server issued`);
}

/** The token for the page after `page`, or "" when the page was not full. */
export function nextCursor(page: readonly { created_at: string; id: string }[], limit: number, prev?: Cursor): string {
  if (page.length < limit || page.length === 0) return "";
  const c = page[page.length - 1]!.created_at;
  const seen = prev && prev.c === c ? [...prev.seen] : [];
  for (const r of page) if (r.created_at === c) seen.push(r.id);
  return encodeCursor({ c, seen });
}
