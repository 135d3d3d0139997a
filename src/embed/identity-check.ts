import { identityKey, type EmbedderIdentity } from "./embedder.js";

export type IdentityCheck = { ok: true; first: boolean } | { ok: false; message: string };

/**
 * While an embedded `engram reindex --apply` is under way the stored
 * identity is this prefix plus the target, a key no embedder has: a start
 * on the old configuration and a start on the new one are both refused
 * until a run completes, so no server ever searches a mix of two
 * embedders' vectors.
 */
export const REINDEX_IN_PROGRESS = "reindex-in-progress:";

/**
 * Compares the identity key stored with the data against the configured
 * embedder. No stored key means a first start (the caller stores the key);
 * a different key means the stored vectors live in another space and
 * searching them with the new embedder would return nonsense.
 *
 * A reindex that stopped part-way is its own refusal: some records carry
 * the target's vectors, so restoring the original configuration does not
 * help; only a run that finishes does (for the target, or, run with another
 * configuration, for that one: every record not yet embedded by it is).
 */
export function checkEmbedderIdentity(stored: string | undefined, current: EmbedderIdentity): IdentityCheck {
  const key = identityKey(current);
  if (stored === undefined) return { ok: true, first: true };
  if (stored === key) return { ok: true, first: false };
  if (stored.startsWith(REINDEX_IN_PROGRESS)) {
    const target = stored.slice(REINDEX_IN_PROGRESS.length);
    return {
      ok: false,
      message:
        `the data is part-way through \`engram reindex\` to embedder ${target} (a run is under way, or one stopped before it finished); ` +
        "until one finishes no embedder configuration can serve it, the original one included; " +
        (target === key
          ? "run `engram reindex --apply` again to finish it"
          : `run \`engram reindex --apply\` again with the configuration for ${target} to finish it, or with this one to re-embed the data for ${key} instead`),
    };
  }
  return {
    ok: false,
    message:
      `the data was written by embedder ${stored} but the server is configured for ${key}; ` +
      "either restore the original embedder configuration, or run `engram reindex` to re-embed the data with the new one",
  };
}
