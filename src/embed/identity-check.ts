import { identityKey, type EmbedderIdentity } from "./embedder.js";

export type IdentityCheck = { ok: true; first: boolean } | { ok: false; message: string };

/**
 * Compares the identity key stored with the data against the configured
 * embedder. No stored key means a first start (the caller stores the key);
 * a different key means the stored vectors live in another space and
 * searching them with the new embedder would return nonsense.
 */
export function checkEmbedderIdentity(stored: string | undefined, current: EmbedderIdentity): IdentityCheck {
  const key = identityKey(current);
  if (stored === undefined) return { ok: true, first: true };
  if (stored === key) return { ok: true, first: false };
  return {
    ok: false,
    message:
      `the data was written by embedder ${stored} but the server is configured for ${key}; ` +
      "either restore the original embedder configuration, or run `engram reindex` to re-embed the data with the new one",
  };
}
