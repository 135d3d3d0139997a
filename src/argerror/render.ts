import type { Hint } from "./vocabulary.js";

/**
 * The one function that writes an envelope. Field names keep the order the
 * rule declares; they are joined without spaces so a client can split on ",".
 */
export function render(fields: readonly string[], hint: Hint, detail: string): string {
  if (fields.length === 0) throw new Error("an envelope names at least one field");
  return `field=${fields.join(",")} hint=${hint}: ${detail}`;
}
