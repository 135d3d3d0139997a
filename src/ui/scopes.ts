import { nearestScopes } from "../core/nearest-scopes.js";
import { engram } from "./client.js";
import { h } from "./dom.js";

/**
 * The scopes the caller may read, with their record counts and whether the
 * scan hit its cap: the one place the console asks, whether for the scope
 * list, the spine review, the empty-scope note or to prove a token works.
 */
export async function readableScopes() {
  return engram.listScopes({});
}

/**
 * Beside an empty answer for one named scope: when the caller holds no
 * record there at all (a typo, not records the recall gate hides), a note
 * that says so and links the caller's nearest scopes. Nothing otherwise,
 * and nothing when the scopes cannot be listed: it is advice only.
 */
export async function emptyScopeNote(scope: string): Promise<HTMLElement | null> {
  if (scope === "") return null;
  let scopes: string[];
  try {
    scopes = (await readableScopes()).scopes.map((s) => s.scope);
  } catch {
    return null;
  }
  if (scopes.includes(scope)) return null;
  const near = nearestScopes(scope, scopes);
  return h(
    "p",
    { class: "notice", id: "empty-scope" },
    "This scope holds no records you may read.",
    ...(near.length > 0
      ? [" Nearest: ", ...near.flatMap((s, i) => [i > 0 ? ", " : "", h("a", { href: `#/records/${encodeURIComponent(s)}` }, s)])]
      : []),
  );
}
