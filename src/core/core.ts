import { checkArgKinds, type KindsOf } from "./arg-kinds.js";
import type { CoreDeps } from "./deps.js";
import { LANE_POLICY, type Lane } from "./limits.js";
import { OPERATIONS, type CoreOperations } from "./operations.js";
import type { Subject } from "../model/subject.js";

/** The page token is called by the lane's own name in a type error, as in every other page-token error. */
const cursorName = (lane: Lane) => ({ page_token: LANE_POLICY[lane].cursorField });

type AnyRow = (typeof OPERATIONS)[keyof typeof OPERATIONS];
type Run = (deps: CoreDeps, ...rest: unknown[]) => Promise<unknown>;

/**
 * One bound function per row. Every checked operation first checks the JSON
 * type of each argument it was given (a lane may hand over caller JSON
 * unchecked), then runs its own checks in the contract's order; a type error
 * is a rejected promise, like every other rejection.
 */
function bind(deps: CoreDeps, row: AnyRow): (...args: never[]) => Promise<unknown> {
  const run = row.run as Run;
  switch (row.form) {
    case "plain": {
      const kinds = row.kinds as KindsOf<object>;
      return async (s: Subject, a: object) => run(deps, s, checkArgKinds(kinds, a));
    }
    case "laned": {
      const kinds = row.kinds as KindsOf<object>;
      return row.paged
        ? async (s: Subject, a: object, lane: Lane) => run(deps, s, checkArgKinds(kinds, a, cursorName(lane)), lane)
        : async (s: Subject, a: object, lane: Lane) => run(deps, s, checkArgKinds(kinds, a), lane);
    }
    case "subject":
      return (s: Subject) => run(deps, s);
    case "store":
      return () => run(deps);
  }
}

/**
 * The operations every lane calls (src/core/operations.ts names them). A lane
 * passes its name where the operation takes one, so lane-specific defaults
 * are looked up here, not decided in the adapter.
 */
export function createCore(deps: CoreDeps): { readonly deps: CoreDeps } & CoreOperations {
  const bound: Record<string, unknown> = { deps };
  for (const [name, row] of Object.entries(OPERATIONS)) bound[name] = bind(deps, row);
  return bound as { readonly deps: CoreDeps } & CoreOperations;
}

export type Core = ReturnType<typeof createCore>;
