import type { DeleteArgs, GetArgs, ListArgs, SearchArgs, SetVisibilityArgs, StoreArgs, UpdateArgs } from "./args.js";
import type { CoreDeps } from "./deps.js";
import { deleteMemory } from "./delete-memory.js";
import { getMemory } from "./get-memory.js";
import type { Lane } from "./limits.js";
import { listMemories } from "./list-memories.js";
import { listScopes } from "./list-scopes.js";
import { searchMemories } from "./search-memories.js";
import { setVisibility } from "./set-visibility.js";
import { storeMemory } from "./store-memory.js";
import type { Subject } from "./subject.js";
import { updateMemory } from "./update-memory.js";

/**
 * The operations every lane calls. A lane passes its name so lane-specific
 * defaults are looked up here, not decided in the adapter.
 */
export function createCore(deps: CoreDeps) {
  return {
    deps,
    storeMemory: (s: Subject, a: StoreArgs) => storeMemory(deps, s, a),
    getMemory: (s: Subject, a: GetArgs) => getMemory(deps, s, a),
    searchMemories: (s: Subject, a: SearchArgs, lane: Lane) => searchMemories(deps, s, a, lane),
    listMemories: (s: Subject, a: ListArgs, lane: Lane) => listMemories(deps, s, a, lane),
    updateMemory: (s: Subject, a: UpdateArgs, lane: Lane) => updateMemory(deps, s, a, lane),
    deleteMemory: (s: Subject, a: DeleteArgs) => deleteMemory(deps, s, a),
    setVisibility: (s: Subject, a: SetVisibilityArgs, lane: Lane) => setVisibility(deps, s, a, lane),
    listScopes: (s: Subject) => listScopes(deps, s),
  };
}

export type Core = ReturnType<typeof createCore>;
