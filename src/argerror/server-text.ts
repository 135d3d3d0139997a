import { INTERNAL_TEXT } from "./classify.js";
import { DATA_LOSS_TEXT } from "./data-loss.js";
import { parse } from "./parse.js";
import { SENTINEL_TABLE } from "./sentinel.js";
import { UNAVAILABLE_PREFIX } from "./unavailable.js";

/**
 * Whether a message is one the server words the same on every lane: an
 * envelope, a business sentinel, `internal error`, an unavailable or a
 * data-loss text. A client shows these exactly as sent, so a script that
 * matches `not found: ` on MCP matches it in the CLI's stderr too. Anything
 * else a client meets (a transport's own message, an HTTP status) is not the
 * server's word, and the CLI marks it as its own.
 */
export function isServerText(text: string): boolean {
  if (parse(text).kind === "envelope") return true;
  if (text === INTERNAL_TEXT || text === DATA_LOSS_TEXT || text.startsWith(`${UNAVAILABLE_PREFIX}: `)) return true;
  return Object.values(SENTINEL_TABLE).some(
    ({ prefix }) => text === prefix || text.startsWith(`${prefix}: `) || text.startsWith(`${prefix} — `),
  );
}
