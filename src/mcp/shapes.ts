/**
 * MCP input shapes. They describe JSON types only: every field is optional
 * and carries no bound, because the core validates and names the right field
 * in its envelope. The shapes are type-checked against the core's argument
 * types: each core field is either exposed under its own name with a zod type
 * whose parsed value fits it, or listed as hidden on this lane. A new core
 * field, a renamed one or a mistyped one fails to compile here.
 */
import { z } from "zod";
import { DEFAULT_LIMITS, LANE_POLICY, SCHEDULE_STATES } from "../core/index.js";
import type { ArgsOf, CitationArg, RecallFilterArgs } from "../core/index.js";
import { RULES } from "../argerror/index.js";

/**
 * One zod field per core field of `T`, except the `Hidden` ones (fields this
 * lane never sends, or sends under another name declared next to the shape).
 */
export type ShapeFor<T, Hidden extends keyof T = never> = {
  [K in Exclude<keyof T, Hidden>]-?: z.ZodType<T[K] | undefined>;
};

const MCP = LANE_POLICY.mcp;
const MAX = DEFAULT_LIMITS.maxRecall;
const SCOPE_RULE = RULES["scope-required-unless-cross-spine"].sentence;

const text = (description: string) => z.string().describe(description).optional();
const flag = (description: string) => z.boolean().describe(description).optional();
const words = (description: string) => z.array(z.string()).describe(description).optional();
/** A non-negative integer, like the proto's uint64 counts; the maximum is the core's to check. */
const count = (description: string) => z.number().int().min(0).describe(description).optional();

export const citationShape = {
  kind: text("file | commit | url | repo"),
  ref: text("the source anchor: a path, a commit SHA, a URL or a repository"),
  locator: text("where inside the source, e.g. a line range 200-240"),
  pin: text("what the source was pinned to: a SHA, a hash, @rev or a fetch time"),
  excerpt: text("the quoted passage"),
} satisfies ShapeFor<CitationArg>;

const citations = z.array(z.object(citationShape)).describe("sources backing the memory").optional();
const cursor = text("next_cursor from the previous page; omit for the first page");

export const storeShape = {
  content: text("the memory itself, in full"),
  scope: text("where it belongs, colon-delimited, e.g. project:engram or repo:github.com/acme/api"),
  source: text("user-said | agent-inferred"),
  category: text("decision | preference | convention | gotcha"),
  tags: words("labels for filtering (a search or list with tags matches records carrying all of them); no blanks, a repeat is kept once"),
  repo: text("repository the memory is about"),
  workspace: text("workspace the memory is about"),
  worktree: text("worktree path the memory is about"),
  base_dir: text("base directory the memory is about"),
  summary: text("optional summary shown in recall results, one line"),
  citations,
  idempotency_key: text("optional retry key: the same key with the same content returns the original id"),
} satisfies ShapeFor<ArgsOf<"storeMemory">>;

export const storeManyShape = {
  memories: z
    .array(z.object(storeShape))
    .describe(`1 to ${DEFAULT_LIMITS.maxBatchRecords} records, each with store_memory's arguments`)
    .optional(),
  stop_at_first_error: flag("write nothing after the first refused record; results end with its error (default false)"),
} satisfies ShapeFor<ArgsOf<"storeMemories">>;

/** The recall-gate relaxations are operator knobs of Connect and the CLI; agents always recall through the gate. */
type GateKnobs = "include_archived" | "include_superseded" | "include_scheduled";

const scope = text(`scope to read; ${SCOPE_RULE}`);
const crossSpine = flag("span every scope you may read; any scope given is ignored");
const recallFilters = {
  scope,
  cross_spine: crossSpine,
  tags: words("only records carrying all of these tags"),
  categories: words("only records in any of these categories"),
  full: flag("return full records instead of the compact summary view (default false)"),
  created_after: text("RFC3339 instant; only records created at or after it"),
  created_before: text("RFC3339 instant; only records created before it"),
} satisfies ShapeFor<RecallFilterArgs, GateKnobs>;

export const searchShape = {
  query: text(`what to recall, in natural language; at most ${DEFAULT_LIMITS.maxQueryBytes} bytes by default`),
  k: count(`how many hits (default ${MCP.searchK}, max ${MAX})`),
  ...recallFilters,
} satisfies ShapeFor<ArgsOf<"searchMemories">, GateKnobs>;

/**
 * MCP lists always page by cursor, so offset paging and its switch are not
 * offered, and the token is called `cursor` here (`page_token` in the core).
 */
export const listShape = {
  limit: count(`page size (default ${MCP.listLimitCursor}, max ${MAX})`),
  cursor: cursor satisfies z.ZodType<ArgsOf<"listMemories">["page_token"] | undefined>,
  ...recallFilters,
} satisfies ShapeFor<ArgsOf<"listMemories">, GateKnobs | "offset" | "cursor_mode" | "visibility" | "page_token"> & {
  cursor: unknown;
};

const id = text("the memory's id or short_id");

export const getShape = { id } satisfies ShapeFor<ArgsOf<"getMemory">>;

/** Connect's update_mask has no MCP counterpart: an omitted field is unchanged. */
export const updateShape = {
  id,
  content: text("the new content (required on this tool; send the old content to keep it)"),
  shared: flag("true shares the memory with every authenticated caller, false makes it private; omit to keep"),
  tags: words("the new tag set; omit to keep, [] to clear"),
  summary: text('the new one-line summary; omit to keep, "" to clear'),
} satisfies ShapeFor<ArgsOf<"updateMemory">, "update_mask">;

export const deleteShape = { id } satisfies ShapeFor<ArgsOf<"deleteMemory">>;

export const setVisibilityShape = {
  id,
  shared: flag("true shares the memory with every authenticated caller, false makes it private"),
} satisfies ShapeFor<ArgsOf<"setVisibility">>;

export const scheduleShape = {
  ...storeShape,
  not_before: text("RFC3339 instant before which the memory is not recalled"),
  not_after: text("RFC3339 instant from which the memory is no longer recalled; must be in the future"),
} satisfies ShapeFor<ArgsOf<"scheduleMemory">>;

export const listScheduledShape = {
  scope,
  cross_spine: crossSpine,
  state: text(`one of ${SCHEDULE_STATES.join(" | ")}: not active yet (the default), inside its window now, window passed, or any of them`),
  limit: count(`page size (default ${MCP.listLimitCursor}, max ${MAX})`),
  created_after: recallFilters.created_after,
  created_before: recallFilters.created_before,
  cursor: cursor satisfies z.ZodType<ArgsOf<"listScheduled">["page_token"] | undefined>,
} satisfies ShapeFor<ArgsOf<"listScheduled">, "page_token"> & { cursor: unknown };

export const deleteAllShape = {
  scope: text("the scope to clear of your own records"),
} satisfies ShapeFor<ArgsOf<"deleteAll">, "dry_run">;

export const storeDiscoveryShape = {
  content: text("what was found, in full"),
  kind: text("map (how some code is laid out) | fact (one thing that is true of it)"),
  citations: z.array(z.object(citationShape)).describe("where it was found: 1 to 50 citations").optional(),
  scope: text('a discovery scope, e.g. discovery:repo:github.com/acme/api (must start with "discovery:")'),
  tags: storeShape.tags,
  summary: storeShape.summary,
  id: text("replace this discovery in place instead of adding one"),
} satisfies ShapeFor<ArgsOf<"storeDiscovery">>;

export const searchDiscoveryShape = {
  query: text(`what to recall, in natural language; at most ${DEFAULT_LIMITS.maxQueryBytes} bytes by default`),
  scope: text(`discovery scope to search; ${SCOPE_RULE}`),
  cross_spine: flag("span every discovery scope you may read; any scope given is ignored"),
  kind: text("only map or only fact discoveries"),
  k: count(`how many hits (default ${MCP.discoveryK}, max ${MAX})`),
} satisfies ShapeFor<ArgsOf<"searchDiscoveries">>;

/**
 * The schema advertises at least one target (minItems 1) for clients that
 * check arguments before sending; the bound is not enforced here, so an
 * empty list still reaches the core and gets its envelope.
 */
export const supersedeShape = {
  ...storeShape,
  supersedes: z
    .array(z.string())
    .meta({ minItems: 1 })
    .describe("ids or short ids of the memories this one replaces")
    .optional(),
  validate_only: flag("run every check and report what would be superseded, without writing"),
} satisfies ShapeFor<ArgsOf<"supersedeMemory">>;

export const storeRuleShape = {
  content: text("the rule, in full"),
  scope: text("rule:repo:<repo> or rule:project:<project>"),
  summary: text("one line naming the rule; it is the rule's index entry"),
  tags: storeShape.tags,
  id: text("replace this rule in place instead of adding one"),
} satisfies ShapeFor<ArgsOf<"storeRule">>;

export const listRulesShape = {
  scopes: words("rule scopes to list; omit for every rule scope you may read"),
  tags: words("only rules carrying all of these tags"),
  full: flag("return full records instead of the compact rule view (default false)"),
} satisfies ShapeFor<ArgsOf<"listRules">>;

export const batchShape = {
  ids: words(`ids or short ids, 1 to ${MAX}`),
} satisfies ShapeFor<ArgsOf<"archiveMemory" | "restoreMemory">>;

export const relatedShape = {
  id,
  k: count(`how many nearest neighbours by meaning (default ${DEFAULT_LIMITS.relatedDefaultK}, max ${MAX})`),
  full: flag("return full records instead of the compact view (default false)"),
} satisfies ShapeFor<ArgsOf<"relatedMemories">>;

export const listTagsShape = {
  scope: text("count tags in this scope only; omit for every scope you may read"),
  limit: count(`how many tags (default ${DEFAULT_LIMITS.listTagsDefaultLimit}, max ${MAX})`),
} satisfies ShapeFor<ArgsOf<"listTags">>;
