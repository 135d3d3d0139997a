import { argError } from "../argerror/index.js";
import type {
  BatchArgs,
  CitationArg,
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

/**
 * The JSON type each argument must have. A lane whose wire format already
 * fixes types (proto) always passes; a lane that forwards caller JSON as is
 * (MCP) gets its type errors here, named by field, instead of from a
 * schema library in front of the core.
 */
export type ArgKind = "string" | "boolean" | "count" | "strings" | "citations";

/** One kind per field of T, in the order the fields are checked. */
export type KindsOf<T> = { readonly [K in keyof T]-?: ArgKind };

const STORE = {
  content: "string",
  scope: "string",
  source: "string",
  category: "string",
  tags: "strings",
  repo: "string",
  workspace: "string",
  worktree: "string",
  base_dir: "string",
  summary: "string",
  citations: "citations",
  idempotency_key: "string",
} as const satisfies KindsOf<StoreArgs>;

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

/** Every operation's argument kinds; the compiler keeps each table equal to its argument type. */
export const ARG_KINDS = {
  store: STORE,
  schedule: { ...STORE, not_before: "string", not_after: "string" } satisfies KindsOf<ScheduleArgs>,
  supersede: { ...STORE, supersedes: "strings", validate_only: "boolean" } satisfies KindsOf<SupersedeArgs>,
  search: { query: "string", k: "count", ...RECALL_FILTERS } satisfies KindsOf<SearchArgs>,
  list: {
    limit: "count",
    offset: "count",
    ...RECALL_FILTERS,
    visibility: "string",
    page_token: "string",
    cursor_mode: "boolean",
  } satisfies KindsOf<ListArgs>,
  get: { id: "string" } satisfies KindsOf<GetArgs>,
  update: { id: "string", content: "string", shared: "boolean", tags: "strings", summary: "string", update_mask: "strings" } satisfies KindsOf<UpdateArgs>,
  delete: { id: "string" } satisfies KindsOf<DeleteArgs>,
  deleteAll: { scope: "string", dry_run: "boolean" } satisfies KindsOf<DeleteAllArgs>,
  setVisibility: { id: "string", shared: "boolean" } satisfies KindsOf<SetVisibilityArgs>,
  listScheduled: {
    scope: "string",
    cross_spine: "boolean",
    state: "string",
    limit: "count",
    created_after: "string",
    created_before: "string",
    page_token: "string",
  } satisfies KindsOf<ListScheduledArgs>,
  storeDiscovery: {
    content: "string",
    kind: "string",
    citations: "citations",
    scope: "string",
    tags: "strings",
    summary: "string",
    id: "string",
  } satisfies KindsOf<StoreDiscoveryArgs>,
  searchDiscoveries: { query: "string", scope: "string", k: "count", kind: "string", cross_spine: "boolean" } satisfies KindsOf<SearchDiscoveriesArgs>,
  storeRule: { content: "string", scope: "string", summary: "string", tags: "strings", id: "string" } satisfies KindsOf<StoreRuleArgs>,
  listRules: { scopes: "strings", tags: "strings", full: "boolean" } satisfies KindsOf<ListRulesArgs>,
  batch: { ids: "strings" } satisfies KindsOf<BatchArgs>,
  related: { id: "string", k: "count", full: "boolean" } satisfies KindsOf<RelatedArgs>,
  listTags: { scope: "string", limit: "count" } satisfies KindsOf<ListTagsArgs>,
} as const;

const CITATION_FIELDS = ["kind", "ref", "locator", "pin", "excerpt"] as const satisfies readonly (keyof CitationArg)[];

/** A name the caller chose may be repeated only when it is short and plainly an identifier. */
export function plainName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkCitationList(field: string, value: unknown): void {
  if (!Array.isArray(value)) throw argError(field, "format", `${field} must be a list of citation objects`);
  value.forEach((c: unknown, i) => {
    if (!isPlainObject(c)) throw argError(field, "format", `citation ${i} must be an object`, { index: i });
    for (const key of Object.keys(c)) {
      if (!(CITATION_FIELDS as readonly string[]).includes(key)) {
        const what = plainName(key) ? key : "a field it has";
        throw argError(`${field}[i]`, "not_applicable", `citation ${i}: ${what} is not a field of a citation`, { index: i });
      }
    }
    for (const key of CITATION_FIELDS) {
      const v = c[key];
      if (v !== undefined && typeof v !== "string") {
        throw argError(`${field}[i].${key}`, "format", `citation ${i}: ${key} must be a string`, { index: i });
      }
    }
  });
}

function checkKind(field: string, kind: ArgKind, value: unknown): void {
  switch (kind) {
    case "string":
      if (typeof value !== "string") throw argError(field, "format", `${field} must be a string`);
      return;
    case "boolean":
      if (typeof value !== "boolean") throw argError(field, "format", `${field} must be true or false`);
      return;
    case "count":
      // A JSON number literal too long for a double parses as Infinity: a
      // whole number past every cap, left for the cap to refuse (checkCount).
      if (typeof value !== "number" || !(Number.isInteger(value) || value === Number.POSITIVE_INFINITY) || value < 0) {
        throw argError(field, "format", `${field} must be a non-negative integer`);
      }
      return;
    case "strings":
      if (!Array.isArray(value) || !value.every((s) => typeof s === "string")) {
        throw argError(field, "format", `${field} must be a list of strings`);
      }
      return;
    case "citations":
      checkCitationList(field, value);
      return;
  }
}

/**
 * Checks every present argument against its kind, in table order, before any
 * other check of the operation. `names` renames a field to what the lane
 * calls it (MCP's `cursor` is the core's `page_token`).
 */
export function checkArgKinds<T extends object>(kinds: KindsOf<T>, args: T, names: Partial<Record<keyof T, string>> = {}): T {
  if (!isPlainObject(args)) throw argError("arguments", "format", "arguments must be an object");
  for (const field of Object.keys(kinds) as (keyof T & string)[]) {
    const value = (args as Record<string, unknown>)[field];
    if (value !== undefined) checkKind(names[field] ?? field, kinds[field], value);
  }
  return args;
}
