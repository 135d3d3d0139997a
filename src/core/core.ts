import type {
  BatchArgs,
  DeleteAllArgs,
  DeleteArgs,
  GetArgs,
  ListArgs,
  ListRulesArgs,
  ListScheduledArgs,
  ListTagsArgs,
  RelatedArgs,
  ScheduleArgs,
  SearchArgs,
  SearchDiscoveriesArgs,
  SetVisibilityArgs,
  StoreArgs,
  StoreDiscoveryArgs,
  StoreRuleArgs,
  SupersedeArgs,
  UpdateArgs,
} from "./args.js";
import { archiveMemory, restoreMemory } from "./archive.js";
import type { CoreDeps } from "./deps.js";
import { deleteAll } from "./delete-all.js";
import { deleteMemory } from "./delete-memory.js";
import { getMemory } from "./get-memory.js";
import type { Lane } from "./limits.js";
import { listMemories } from "./list-memories.js";
import { listScheduled } from "./list-scheduled.js";
import { listScopes } from "./list-scopes.js";
import { listTags } from "./list-tags.js";
import { migrateStatus } from "./migrate-status.js";
import { relatedMemories } from "./related-memories.js";
import { listRules, storeRule } from "./rules.js";
import { scheduleMemory } from "./schedule-memory.js";
import { searchDiscoveries } from "./search-discoveries.js";
import { searchMemories } from "./search-memories.js";
import { setVisibility } from "./set-visibility.js";
import { storeDiscovery } from "./store-discovery.js";
import { storeMemory } from "./store-memory.js";
import type { Subject } from "./subject.js";
import { supersedeMemory } from "./supersede-memory.js";
import { updateMemory } from "./update-memory.js";

/**
 * The operations every lane calls. A lane passes its name so lane-specific
 * defaults are looked up here, not decided in the adapter.
 */
export function createCore(deps: CoreDeps) {
  return {
    deps,
    storeMemory: (s: Subject, a: StoreArgs) => storeMemory(deps, s, a),
    scheduleMemory: (s: Subject, a: ScheduleArgs) => scheduleMemory(deps, s, a),
    getMemory: (s: Subject, a: GetArgs) => getMemory(deps, s, a),
    searchMemories: (s: Subject, a: SearchArgs, lane: Lane) => searchMemories(deps, s, a, lane),
    listMemories: (s: Subject, a: ListArgs, lane: Lane) => listMemories(deps, s, a, lane),
    listScheduled: (s: Subject, a: ListScheduledArgs, lane: Lane) => listScheduled(deps, s, a, lane),
    updateMemory: (s: Subject, a: UpdateArgs, lane: Lane) => updateMemory(deps, s, a, lane),
    deleteMemory: (s: Subject, a: DeleteArgs) => deleteMemory(deps, s, a),
    deleteAll: (s: Subject, a: DeleteAllArgs) => deleteAll(deps, s, a),
    setVisibility: (s: Subject, a: SetVisibilityArgs, lane: Lane) => setVisibility(deps, s, a, lane),
    storeDiscovery: (s: Subject, a: StoreDiscoveryArgs) => storeDiscovery(deps, s, a),
    searchDiscoveries: (s: Subject, a: SearchDiscoveriesArgs, lane: Lane) => searchDiscoveries(deps, s, a, lane),
    storeRule: (s: Subject, a: StoreRuleArgs) => storeRule(deps, s, a),
    listRules: (s: Subject, a: ListRulesArgs) => listRules(deps, s, a),
    supersedeMemory: (s: Subject, a: SupersedeArgs) => supersedeMemory(deps, s, a),
    archiveMemory: (s: Subject, a: BatchArgs) => archiveMemory(deps, s, a),
    restoreMemory: (s: Subject, a: BatchArgs) => restoreMemory(deps, s, a),
    relatedMemories: (s: Subject, a: RelatedArgs) => relatedMemories(deps, s, a),
    listTags: (s: Subject, a: ListTagsArgs) => listTags(deps, s, a),
    listScopes: (s: Subject) => listScopes(deps, s),
    migrateStatus: () => migrateStatus(deps),
  };
}

export type Core = ReturnType<typeof createCore>;
