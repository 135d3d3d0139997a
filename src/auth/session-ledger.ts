/**
 * Where the end of a console session is kept. A sealed cookie cannot be
 * taken back from the browser that holds it, so each owner has a session
 * generation: a session is sealed with the generation current at its
 * sign-in and is honoured only while that is still the owner's generation.
 * Signing out (or an operator ending an owner's sessions) advances it, which
 * ends every console session of that owner at once.
 *
 * A server keeps the generations in its store's meta table, so every server
 * on the same store honours a sign-out made on any of them; without a store
 * (a test's bare session) they live in this process only.
 */

/** The part of the store a ledger needs: its meta key-value table. */
export type MetaTable = { getMeta(key: string): Promise<string | undefined>; setMeta(key: string, value: string): Promise<void> };

export type SessionLedger = {
  /** The owner's current generation; 0 before any sign-out. */
  generation(owner: string): Promise<number>;
  /** Ends every session sealed under the owner's current generation. */
  advance(owner: string): Promise<void>;
};

/** One meta key per owner that ever signed out. */
export const SESSION_GENERATION_META = "console_session_generation:";

function parsed(value: string | undefined): number {
  const n = value === undefined ? 0 : Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

export function storeSessionLedger(meta: MetaTable): SessionLedger {
  const key = (owner: string) => SESSION_GENERATION_META + owner;
  return {
    generation: async (owner) => parsed(await meta.getMeta(key(owner))),
    advance: async (owner) => meta.setMeta(key(owner), String(parsed(await meta.getMeta(key(owner))) + 1)),
  };
}

export function memorySessionLedger(): SessionLedger {
  const generations = new Map<string, number>();
  return {
    generation: async (owner) => generations.get(owner) ?? 0,
    advance: async (owner) => void generations.set(owner, (generations.get(owner) ?? 0) + 1),
  };
}
