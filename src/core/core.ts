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
import { ARG_KINDS, checkArgKinds } from "./arg-kinds.js";
import type { CoreDeps } from "./deps.js";
import { deleteAll } from "./delete-all.js";
import { deleteMemory } from "./delete-memory.js";
import { getMemory } from "./get-memory.js";
import { LANE_POLICY, type Lane } from "./limits.js";
import { listMemories } from "./list-memories.js";
import { listScheduled } from "./list-scheduled.js";
import { listScopes } from "./list-scopes.js";
import { listTags } from "./list-tags.js";
import { migrateStatus } from "./migrate-status.js";
import { relatedMemories } from "./related-memories.js";
import { listRules } from "./list-rules.js";
import { storeRule } from "./store-rule.js";
import { scheduleMemory } from "./schedule-memory.js";
import { searchDiscoveries } from "./search-discoveries.js";
import { searchMemories } from "./search-memories.js";
import { setVisibility } from "./set-visibility.js";
import { storeDiscovery } from "./store-discovery.js";
import { storeMemory } from "./store-memory.js";
import type { Subject } from "../model/subject.js";
import { supersedeMemory } from "./supersede-memory.js";
import { updateMemory } from "./update-memory.js";

/**
 * The operations every lane calls. A lane passes its name so lane-specific
 * defaults are looked up here, not decided in the adapter. Every operation
 * first checks the JSON type of each argument it was given (a lane may hand
 * over caller JSON unchecked), then runs its own checks in the contract's
 * order.
 */
export function createCore(deps: CoreDeps) {
  const K = ARG_KINDS;
  /** The page token is called by the lane's own name in a type error, as in every other page-token error. */
  const cursorName = (lane: Lane) => ({ page_token: LANE_POLICY[lane].cursorField });
  return {
    deps,
    storeMemory: async (s: Subject, a: StoreArgs) => storeMemory(deps, s, checkArgKinds(K.store, a)),
    scheduleMemory: async (s: Subject, a: ScheduleArgs) => scheduleMemory(deps, s, checkArgKinds(K.schedule, a)),
    getMemory: async (s: Subject, a: GetArgs) => getMemory(deps, s, checkArgKinds(K.get, a)),
    searchMemories: async (s: Subject, a: SearchArgs, lane: Lane) => searchMemories(deps, s, checkArgKinds(K.search, a), lane),
    listMemories: async (s: Subject, a: ListArgs, lane: Lane) => listMemories(deps, s, checkArgKinds(K.list, a, cursorName(lane)), lane),
    listScheduled: async (s: Subject, a: ListScheduledArgs, lane: Lane) =>
      listScheduled(deps, s, checkArgKinds(K.listScheduled, a, cursorName(lane)), lane),
    updateMemory: async (s: Subject, a: UpdateArgs, lane: Lane) => updateMemory(deps, s, checkArgKinds(K.update, a), lane),
    deleteMemory: async (s: Subject, a: DeleteArgs) => deleteMemory(deps, s, checkArgKinds(K.delete, a)),
    deleteAll: async (s: Subject, a: DeleteAllArgs) => deleteAll(deps, s, checkArgKinds(K.deleteAll, a)),
    setVisibility: async (s: Subject, a: SetVisibilityArgs, lane: Lane) => setVisibility(deps, s, checkArgKinds(K.setVisibility, a), lane),
    storeDiscovery: async (s: Subject, a: StoreDiscoveryArgs) => storeDiscovery(deps, s, checkArgKinds(K.storeDiscovery, a)),
    searchDiscoveries: async (s: Subject, a: SearchDiscoveriesArgs, lane: Lane) =>
      searchDiscoveries(deps, s, checkArgKinds(K.searchDiscoveries, a), lane),
    storeRule: async (s: Subject, a: StoreRuleArgs) => storeRule(deps, s, checkArgKinds(K.storeRule, a)),
    listRules: async (s: Subject, a: ListRulesArgs) => listRules(deps, s, checkArgKinds(K.listRules, a)),
    supersedeMemory: async (s: Subject, a: SupersedeArgs) => supersedeMemory(deps, s, checkArgKinds(K.supersede, a)),
    archiveMemory: async (s: Subject, a: BatchArgs) => archiveMemory(deps, s, checkArgKinds(K.batch, a)),
    restoreMemory: async (s: Subject, a: BatchArgs) => restoreMemory(deps, s, checkArgKinds(K.batch, a)),
    relatedMemories: async (s: Subject, a: RelatedArgs) => relatedMemories(deps, s, checkArgKinds(K.related, a)),
    listTags: async (s: Subject, a: ListTagsArgs) => listTags(deps, s, checkArgKinds(K.listTags, a)),
    listScopes: (s: Subject) => listScopes(deps, s),
    migrateStatus: () => migrateStatus(deps),
  };
}

export type Core = ReturnType<typeof createCore>;
