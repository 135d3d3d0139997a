import { MIN_QDRANT_VERSION } from "./layout.js";

/** Raised at start when the server cannot give engram the guarantees it relies on. */
export class QdrantSetupError extends Error {
  override readonly name = "QdrantSetupError";
}

function parts(v: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** -1, 0 or 1; undefined when either is not a version. */
export function compareVersions(a: string, b: string): number | undefined {
  const x = parts(a);
  const y = parts(b);
  if (!x || !y) return undefined;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

/**
 * Refuses a server older than MIN_QDRANT_VERSION, saying why: before 1.17 an
 * insert-only write is silently an upsert, so a keyed create racing another
 * server would overwrite the first record instead of being told it exists.
 */
export function checkServerVersion(version: string): void {
  const cmp = compareVersions(version, MIN_QDRANT_VERSION);
  if (cmp === undefined) throw new QdrantSetupError("the Qdrant server did not report a version engram can read; engram needs Qdrant 1.17 or newer");
  if (cmp < 0) {
    throw new QdrantSetupError(
      `Qdrant ${version} is too old: engram needs ${MIN_QDRANT_VERSION} or newer, because older servers silently ignore update_mode insert_only ` +
        "and a racing create would overwrite a record instead of being refused",
    );
  }
}
