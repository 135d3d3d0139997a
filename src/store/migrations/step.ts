import { randomShortId } from "../../model/short-id.js";

/** A stored payload as the migration engine sees it: plain JSON keys. */
export type Payload = Record<string, unknown>;

/**
 * What a step may draw on besides its payload: a step that mints a short
 * id takes it from here, so the sweep decides which ids come in which
 * order (see ascendingShortIds).
 */
export type StepContext = { shortId(): string };

/** Ids from anywhere: for a record computed afresh, and for a store with no index to fill in order. */
export const RANDOM_MINT: StepContext = { shortId: randomShortId };

export type Reversibility =
  | { kind: "inverse"; inverse: (payload: Payload) => Payload }
  | { kind: "irreversible"; reason: string };

/**
 * One schema step. `apply` and `inverse` receive a payload whose nested
 * objects and arrays are frozen (editing one throws) and return the next
 * one, typically a spread of the input; the engine checks the real effect
 * against `addedKeys` before any write, comparing with a copy of the input
 * taken before the step ran, so a step cannot silently overwrite or drop
 * data, not even by editing its input's own keys in place.
 */
export type MigrationStep = {
  from: number;
  to: number;
  /** Keys this step adds. A key already present is allowed and left alone. */
  addedKeys: readonly string[];
  reversibility: Reversibility;
  apply: (payload: Payload, ctx: StepContext) => Payload;
};

export function irreversible(reason: string): Reversibility {
  return { kind: "irreversible", reason };
}

export function inverse(fn: (payload: Payload) => Payload): Reversibility {
  return { kind: "inverse", inverse: fn };
}
