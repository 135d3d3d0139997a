import { DERIVED_KEYS } from "./layout.js";
import type { Payload } from "./point-payload.js";

/**
 * How many replaced revisions a point remembers. A conditional writer reads
 * its point back right after writing, so only the writes that land in that
 * gap push its revision down the trail; eight is far more than a gap holds.
 */
export const REVISION_TRAIL_MAX = 8;

const trailOf = (stored: Payload): string[] => {
  const t = stored[DERIVED_KEYS.revisionTrail];
  return Array.isArray(t) ? t.filter((r): r is string => typeof r === "string") : [];
};

/**
 * The trail a write replacing `stored` leaves: the revision it replaces,
 * then the ones before it, newest first. A writer that knows only the
 * revision it read (a replace of a record the core holds) passes just that.
 */
export function trailOver(stored: Payload | string | undefined): string[] {
  if (stored === undefined) return [];
  if (typeof stored === "string") return [stored];
  const rev = stored.revision;
  return typeof rev === "string" ? trailAfter(rev, trailOf(stored)) : [];
}

/** The trail of a point whose revision is `revision` and whose trail was `before`: what a write replacing it leaves. */
export function trailAfter(revision: string, before: readonly string[]): string[] {
  return [revision, ...before].slice(0, REVISION_TRAIL_MAX);
}

/**
 * Whether a conditional write that set `revision` landed, read from the point
 * as it is now. Write results carry no affected count, and another writer may
 * build on a landed write before its read-back: then the revision is gone
 * from the point but sits in its trail, so a retry does not apply it twice.
 */
export function landedIn(stored: Payload | undefined, revision: string): boolean {
  if (!stored) return false;
  return stored.revision === revision || trailOf(stored).includes(revision);
}
