import type { CoreDeps } from "./deps.js";
import type { Subject } from "../model/subject.js";

export type Coverage = { searched_scopes: string[]; scopes_truncated: boolean } | { scopes_unknown: true };

/**
 * The scopes a cross-spine read spanned: what the caller may read, not what
 * produced hits. A failure to enumerate is reported, never raised.
 */
export async function coverage(deps: CoreDeps, subject: Subject, prefix?: string): Promise<Coverage> {
  try {
    const { scopes, approximate } = await deps.store.scopeCounts(subject);
    const names = scopes.map((s) => s.scope).filter((s) => prefix === undefined || s.startsWith(prefix));
    return { searched_scopes: names, scopes_truncated: approximate };
  } catch (err) {
    deps.log.warn("scope coverage unavailable", { error: String(err) });
    return { scopes_unknown: true };
  }
}
