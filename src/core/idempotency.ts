import { createHash } from "node:crypto";
import { v5 as uuidv5 } from "uuid";
import type { StoreArgs } from "./args.js";

/** Fixed namespace of keyed point ids; changing it would orphan every keyed record. */
export const IDEMPOTENCY_NAMESPACE = "69fbe3e4-a53b-4d6e-971a-cad2f107e23c";

function lp(value: string): string {
  return `${Buffer.byteLength(value, "utf8")}:${value}:`;
}

/** Owner is part of the name, so two authenticated owners can never collide. */
export function idempotentPointId(owner: string, scope: string, key: string): string {
  return uuidv5(`${Buffer.byteLength(owner)}:${owner}:${Buffer.byteLength(scope)}:${scope}:${Buffer.byteLength(key)}:${key}`, IDEMPOTENCY_NAMESPACE);
}

/**
 * SHA-256 over the content fields, each length-prefixed so field boundaries
 * cannot shift. The key, server-set fields and any schedule window are not
 * inputs: a retry with a different window still replays.
 */
export function contentFingerprint(a: StoreArgs, extra: readonly string[] = []): string {
  const h = createHash("sha256");
  h.update(lp(a.content ?? ""));
  h.update(lp(a.category ?? ""));
  const tags = [...new Set(a.tags ?? [])].sort();
  h.update(`${tags.length}:`);
  for (const t of tags) h.update(lp(t));
  for (const v of [a.source, a.repo, a.workspace, a.worktree, a.base_dir, a.summary]) h.update(lp(v ?? ""));
  const cites = a.citations ?? [];
  h.update(`${cites.length}:`);
  for (const c of cites) for (const v of [c.kind, c.ref, c.locator, c.pin, c.excerpt]) h.update(lp(v ?? ""));
  h.update(`${extra.length}:`);
  for (const e of extra) h.update(lp(e));
  return h.digest("hex");
}
