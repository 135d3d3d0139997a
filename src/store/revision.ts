import { randomUUID } from "node:crypto";

/**
 * A fresh write token. Every write stamps a new one, so a conditional write
 * that names the token it read lands only if nobody wrote in between. A
 * random token rather than a counter: a store without transactions can
 * tell from a read-back whether its own write is the one that landed.
 */
export function newRevision(): string {
  return randomUUID();
}
