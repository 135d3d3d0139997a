import { nearestScopes } from "../core/index.js";
import type { ClientSettings } from "./client-flags.js";
import { callEngram } from "./rpc.js";

/**
 * After an empty answer for one named scope: when the caller holds no
 * record in that scope at all (a typo such as `repo:dmeo`, not a scope whose
 * records the recall gate hides), one stderr line says so and names the
 * caller's nearest scopes. Advice only: stdout and the exit status are the
 * answer's, and the scope typed is never repeated.
 */
export async function noteEmptyScope(settings: ClientSettings, scope: string, empty: boolean): Promise<void> {
  if (!empty || scope === "") return;
  let scopes: string[];
  try {
    scopes = (await callEngram(settings, (c, opts) => c.listScopes({}, opts))).scopes.map((s) => s.scope);
  } catch {
    return;
  }
  if (scopes.includes(scope)) return;
  const near = nearestScopes(scope, scopes);
  process.stderr.write(`engram: the scope holds no records you may read${near.length > 0 ? `; nearest: ${near.join(", ")}` : ""}\n`);
}
