import type { Hint } from "./vocabulary.js";

/**
 * The one function that writes an envelope. Field names keep the order the
 * rule declares; they are joined without spaces so a client can split on ",".
 */
export function render(fields: readonly string[], hint: Hint, detail: string): string {
  if (fields.length === 0) throw new Error("an envelope names at least one field");
  // A comma or space inside a name would make the envelope unparseable.
  if (fields.some((f) => f === "" || /[,\s]/.test(f))) throw new Error("an envelope field name holds no comma or space");
  return `field=${fields.join(",")} hint=${hint}: ${detail}`;
}
