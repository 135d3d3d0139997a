/**
 * The core's operations, each named once. A row binds an operation's
 * function to the JSON kind of each argument it takes, in the order the
 * arguments are checked, and says whether the caller's lane picks its
 * defaults. Everything else derives from here: `createCore` binds every row,
 * `ArgsOf` gives a lane an operation's argument type, the Connect service
 * must implement exactly these names (a compile check in src/connect), and
 * the MCP tool table maps each tool to one of them (src/mcp/tool-table.ts).
 *
 * A kinds row is checked against the function's own argument type: a field
 * without a kind, or a kind without a field, fails to compile.
 */
import type { Subject } from "../model/subject.js";
import { archiveMemory, restoreMemory } from "./archive.js";
import type { KindsOf } from "./arg-kinds.js";
import type { CoreDeps } from "./deps.js";
import { deleteAll } from "./delete-all.js";
import { deleteMemory } from "./delete-memory.js";
import { getMemory } from "./get-memory.js";
import type { Lane } from "./limits.js";
import { listMemories } from "./list-memories.js";
import { listRules } from "./list-rules.js";
import { listScheduled } from "./list-scheduled.js";
import { listScopes } from "./list-scopes.js";
import { listTags } from "./list-tags.js";
import { migrateStatus } from "./migrate-status.js";
import { relatedMemories } from "./related-memories.js";
import { scheduleMemory } from "./schedule-memory.js";
import { searchDiscoveries } from "./search-discoveries.js";
import { searchMemories } from "./search-memories.js";
import { setVisibility } from "./set-visibility.js";
import { storeDiscovery } from "./store-discovery.js";
import { STORE_KINDS } from "./store-kinds.js";
import { storeMemories } from "./store-memories.js";
import { storeMemory } from "./store-memory.js";
import { storeRule } from "./store-rule.js";
import { supersedeMemory } from "./supersede-memory.js";
import { updateMemory } from "./update-memory.js";

/** A kinds row that names no field the arguments lack (a missing one already breaks `KindsOf`). */
type NoStrayKinds<K, A> = { readonly [F in Exclude<keyof K, keyof A>]: never };

/** Takes the caller's subject and arguments; the same on every lane. */
type Plain<A, R> = { readonly form: "plain"; readonly kinds: KindsOf<A>; readonly run: (deps: CoreDeps, s: Subject, a: A) => Promise<R> };
/**
 * Also takes the caller's lane, whose defaults it applies. `paged` operations
 * name the page token by the lane's own name in a type error, as in every
 * other page-token error.
 */
type Laned<A, R> = {
  readonly form: "laned";
  readonly kinds: KindsOf<A>;
  readonly paged: boolean;
  readonly run: (deps: CoreDeps, s: Subject, a: A, lane: Lane) => Promise<R>;
};
/** Takes only the caller: nothing to check. */
type SubjectOnly<R> = { readonly form: "subject"; readonly run: (deps: CoreDeps, s: Subject) => Promise<R> };
/** Reports on the whole store; the lane decides who may ask. */
type StoreWide<R> = { readonly form: "store"; readonly run: (deps: CoreDeps) => Promise<R> };

function plain<A, R, const K extends KindsOf<A>>(run: (deps: CoreDeps, s: Subject, a: A) => Promise<R>, kinds: K & NoStrayKinds<K, A>): Plain<A, R> {
  return { form: "plain", kinds, run };
}

function laned<A, R, const K extends KindsOf<A>>(
  run: (deps: CoreDeps, s: Subject, a: A, lane: Lane) => Promise<R>,
  kinds: K & NoStrayKinds<K, A>,
  paging: { paged: boolean } = { paged: false },
): Laned<A, R> {
  return { form: "laned", kinds, paged: paging.paged, run };
}

const STORE = STORE_KINDS;

const RECALL_FILTERS = {
  scope: "string",
  cross_spine: "boolean",
  tags: "strings",
  categories: "strings",
  full: "boolean",
  created_after: "string",
  created_before: "string",
  include_archived: "boolean",
  include_superseded: "boolean",
  include_scheduled: "boolean",
} as const;

const BATCH = { ids: "strings" } as const;

export const OPERATIONS = {
  storeMemory: plain(storeMemory, STORE),
  storeMemories: plain(storeMemories, { memories: "records", stop_at_first_error: "boolean" }),
  scheduleMemory: plain(scheduleMemory, { ...STORE, not_before: "string", not_after: "string" }),
  getMemory: plain(getMemory, { id: "string" }),
  searchMemories: laned(searchMemories, { query: "string", k: "count", ...RECALL_FILTERS }),
  listMemories: laned(
    listMemories,
    { limit: "count", offset: "count", ...RECALL_FILTERS, visibility: "string", page_token: "string", cursor_mode: "boolean" },
    { paged: true },
  ),
  listScheduled: laned(
    listScheduled,
    {
      scope: "string",
      cross_spine: "boolean",
      state: "string",
      limit: "count",
      created_after: "string",
      created_before: "string",
      page_token: "string",
    },
    { paged: true },
  ),
  updateMemory: laned(updateMemory, { id: "string", content: "string", shared: "boolean", tags: "strings", summary: "string", update_mask: "strings" }),
  deleteMemory: plain(deleteMemory, { id: "string" }),
  deleteAll: plain(deleteAll, { scope: "string", dry_run: "boolean" }),
  setVisibility: laned(setVisibility, { id: "string", shared: "boolean" }),
  storeDiscovery: plain(storeDiscovery, {
    content: "string",
    kind: "string",
    citations: "citations",
    scope: "string",
    tags: "strings",
    summary: "string",
    id: "string",
  }),
  searchDiscoveries: laned(searchDiscoveries, { query: "string", scope: "string", k: "count", kind: "string", cross_spine: "boolean" }),
  storeRule: plain(storeRule, { content: "string", scope: "string", summary: "string", tags: "strings", id: "string" }),
  listRules: plain(listRules, { scopes: "strings", tags: "strings", full: "boolean" }),
  supersedeMemory: plain(supersedeMemory, { ...STORE, supersedes: "strings", validate_only: "boolean" }),
  archiveMemory: plain(archiveMemory, BATCH),
  restoreMemory: plain(restoreMemory, BATCH),
  relatedMemories: plain(relatedMemories, { id: "string", k: "count", full: "boolean" }),
  listTags: plain(listTags, { scope: "string", limit: "count" }),
  listScopes: { form: "subject", run: listScopes } satisfies SubjectOnly<unknown>,
  migrateStatus: { form: "store", run: (deps: CoreDeps) => migrateStatus(deps) } satisfies StoreWide<unknown>,
};

export type OperationName = keyof typeof OPERATIONS;

type RowOf<N extends OperationName> = (typeof OPERATIONS)[N];

/** The arguments an operation takes from a lane (never for an operation that takes none). */
export type ArgsOf<N extends OperationName> = RowOf<N> extends { kinds: unknown } ? Parameters<RowOf<N>["run"]>[2] : never;

/**
 * Every argument of an operation, each named, `undefined` where the lane has
 * no such field: a lane that builds its arguments as this type fails to
 * compile when the core gains an argument the lane does not map.
 */
export type EveryArgOf<N extends OperationName> = { [F in keyof Required<ArgsOf<N>>]: Required<ArgsOf<N>>[F] | undefined };

/** How a lane calls an operation once the core is built. */
export type Bound<O> = O extends { form: "laned"; run: (deps: CoreDeps, s: Subject, a: infer A, lane: Lane) => Promise<infer R> }
  ? (s: Subject, a: A, lane: Lane) => Promise<R>
  : O extends { form: "plain"; run: (deps: CoreDeps, s: Subject, a: infer A) => Promise<infer R> }
    ? (s: Subject, a: A) => Promise<R>
    : O extends { form: "subject"; run: (deps: CoreDeps, s: Subject) => Promise<infer R> }
      ? (s: Subject) => Promise<R>
      : O extends { form: "store"; run: (deps: CoreDeps) => Promise<infer R> }
        ? () => Promise<R>
        : never;

export type CoreOperations = { readonly [N in OperationName]: Bound<RowOf<N>> };

/** The order an operation checks its arguments' kinds in (its kinds table), so every lane names the same field first. */
export function argumentOrder(operation: string): readonly string[] {
  const op = (OPERATIONS as Record<string, { kinds?: object }>)[operation];
  return op?.kinds === undefined ? [] : Object.keys(op.kinds);
}
