/**
 * One handler per implemented tool: its description, its input shape, and a
 * body that calls the same core operation as the Connect lane (with lane
 * "mcp", so the core applies this lane's defaults) and shapes the answer.
 * Nothing here validates, defaults or classifies; rejections are raised by
 * the core and turned into tool errors in mcp-server.ts.
 */
import type { z } from "zod";
import { CONNECT_CODE_NAME, RULES } from "../argerror/index.js";
import { classifyAndLog } from "../observe/index.js";
import {
  DEFAULT_LIMITS,
  LANE_POLICY,
  outcomeSummary,
  recallRow,
  type ArchiveRow,
  type MemoryView,
  type Core,
  type Coverage,
  type StoreOutcome,
  type Subject,
} from "../core/index.js";
import {
  batchShape,
  deleteAllShape,
  deleteShape,
  getShape,
  listRulesShape,
  listScheduledShape,
  listShape,
  listTagsShape,
  relatedShape,
  scheduleShape,
  searchDiscoveryShape,
  searchShape,
  setVisibilityShape,
  storeDiscoveryShape,
  storeRuleShape,
  storeManyShape,
  storeShape,
  supersedeShape,
  updateShape,
} from "./shapes.js";
import type { ToolName } from "./tool-table.js";

const LANE = "mcp" as const;
const MCP = LANE_POLICY.mcp;
const MAX = DEFAULT_LIMITS.maxRecall;
const QUERY_RULE = `query is required, at most ${DEFAULT_LIMITS.maxQueryBytes} bytes by default (ENGRAM_MEMORY_MAX_QUERY_BYTES)`;
const SCOPE_RULE = RULES["scope-required-unless-cross-spine"].sentence;

export type ToolContext = { core: Core; subject: Subject };

/** A success: the human line first, then `structured` (also mirrored as JSON text). */
export type ToolOutput = { text: string; structured: Record<string, unknown> };

export type ToolHandler<S extends z.ZodRawShape = z.ZodRawShape> = {
  description: string;
  input: S;
  run(ctx: ToolContext, args: z.infer<z.ZodObject<S>>): Promise<ToolOutput>;
};

/** What the registry holds: any handler, its argument type erased. */
export type AnyToolHandler = {
  description: string;
  input: z.ZodRawShape;
  run(ctx: ToolContext, args: never): Promise<ToolOutput>;
};

/** Ties a handler's argument type to its shape. */
function handler<S extends z.ZodRawShape>(h: ToolHandler<S>): ToolHandler<S> {
  return h;
}

/** Compact rows reach agents as the recall view; full records go as they are. */
function rows(list: readonly MemoryView[], full: boolean | undefined): (MemoryView | Partial<MemoryView>)[] {
  return full ? [...list] : list.map(recallRow);
}

/** Coverage keys appear only on cross-spine reads; a scoped read carries none. */
function coverageKeys(c: Coverage | undefined): Partial<Coverage> {
  return c ?? {};
}

/** A batch row as MCP shows it: a not_found row has no id at all rather than an empty one. */
function batchRows(rows: readonly ArchiveRow[]) {
  return rows.map((r) => (r.id === "" ? { requested: r.requested, outcome: r.outcome } : { ...r }));
}

/** A batch's outcomes as MCP shows them: {id, short_id}, or the error store_memory would have answered for that record alone. */
function storeRows(outcomes: readonly StoreOutcome[], log: Core["deps"]["log"]) {
  return outcomes.map((o) => {
    if ("stored" in o) return { id: o.stored.id, short_id: o.stored.short_id };
    const c = classifyAndLog(o.refused, log, "tool call", { tool: "store_memories" });
    return { error: { code: CONNECT_CODE_NAME[c.code], message: c.message } };
  });
}

const WINDOW_RULES = [
  RULES["schedule-window-at-least-one-bound"].sentence,
  RULES["window-not-before-before-not-after"].sentence,
  RULES["discovery-not-schedulable"].sentence,
].join("; ");

export const TOOL_HANDLERS = {
  store_memory: handler({
    description:
      "Save one durable memory for later sessions: a decision, a preference, a convention or a gotcha worth knowing next time. " +
      "Do not store transient state (what you are doing right now, task progress), secrets (tokens, passwords, keys, credentials) " +
      "or timestamps (the server records when each memory was created). " +
      "Required: content, scope, source (user-said when the user said it, agent-inferred when you concluded it) and category " +
      "(decision, preference, convention or gotcha; rules and discoveries have store_rule and store_discovery, and scopes under " +
      "rule: and discovery: belong to them). Optional: tags, repo, workspace, worktree, base_dir, a one-line summary used in " +
      "recall, citations, and an idempotency_key so that a retry returns the original record instead of a duplicate. " +
      "Returns {id, short_id}; either one works wherever an id is accepted.",
    input: storeShape,
    run: async ({ core, subject }, a) => {
      const r = await core.storeMemory(subject, a);
      return { text: `stored ${r.id}`, structured: { id: r.id, short_id: r.short_id } };
    },
  }),

  store_memories: handler({
    description:
      "Save many durable memories in one call, as store_memory would save each (everything store_memory says applies to every record). " +
      `memories lists 1 to ${DEFAULT_LIMITS.maxBatchRecords} records, each with store_memory's arguments; the call is rejected as a whole only ` +
      "when the list itself is malformed or too long. Each record gets its own result, in the order sent: {id, short_id} when stored, or " +
      "{error: {code, message}} with exactly what store_memory would answer for that record; a refused record does not stop the others " +
      "unless stop_at_first_error is true, which writes nothing after it and ends the results there. An idempotency_key works per record. " +
      "Returns {results: [...]}.",
    input: storeManyShape,
    run: async ({ core, subject }, a) => {
      const results = storeRows(await core.storeMemories(subject, a), core.deps.log);
      const stored = results.filter((r) => "id" in r).length;
      // Of the records sent: with stop_at_first_error the results end early.
      return { text: `stored ${stored} of ${a.memories?.length ?? results.length}`, structured: { results } };
    },
  }),

  schedule_memory: handler({
    description:
      "Save a memory that is recalled only inside a time window: a reminder for later (not_before) or a fact with an expiry " +
      "(not_after). Everything store_memory says applies: no transient state, secrets or timestamps in the content; content, scope, " +
      `source and category are required. The window: ${WINDOW_RULES}; not_after must be in the future. Both bounds are RFC3339. ` +
      "Outside its window the memory is not recalled by search or list, but get_memory and list_scheduled still show it. " +
      "Returns {id, short_id}.",
    input: scheduleShape,
    run: async ({ core, subject }, a) => {
      const r = await core.scheduleMemory(subject, a);
      return { text: `scheduled ${r.id}`, structured: { id: r.id, short_id: r.short_id } };
    },
  }),

  search_memory: handler({
    description:
      "Recall the memories most relevant to a natural-language query, best first. " +
      `${QUERY_RULE}; ${SCOPE_RULE}. ` +
      `k is the number of hits (default ${MCP.searchK}, max ${MAX}). ` +
      "Filters: tags (a hit carries all of them), categories (a hit is in one of them), created_after and created_before (RFC3339). " +
      "Hits are compact (id, short_id, summary, scope, category, tags, created_at, score) unless full is true. " +
      "Archived, superseded, expired and not-yet-active memories are never recalled; get_memory still fetches them by id. " +
      "With cross_spine the result also names the scopes searched (searched_scopes, scopes_truncated).",
    input: searchShape,
    run: async ({ core, subject }, a) => {
      const r = await core.searchMemories(subject, a, LANE);
      return {
        text: `${r.memories.length} hits`,
        structured: { memories: rows(r.memories, a.full), ...coverageKeys(r.coverage) },
      };
    },
  }),

  list_memory: handler({
    description:
      "List memories newest first, one page at a time. " +
      `${SCOPE_RULE}. ` +
      `limit is the page size (default ${MCP.listLimitCursor}, max ${MAX}). Pass a result's next_cursor back as cursor for the next page; ` +
      "an empty next_cursor means there are no more. " +
      "Filters: tags (all of them), categories (any of them), created_after and created_before (RFC3339). " +
      "Rows are compact unless full is true. Archived, superseded, expired and not-yet-active memories are not listed. " +
      "With cross_spine the result also names the scopes listed (searched_scopes, scopes_truncated).",
    input: listShape,
    run: async ({ core, subject }, { cursor, ...rest }) => {
      const r = await core.listMemories(subject, { ...rest, page_token: cursor }, LANE);
      return {
        text: `${r.memories.length} memories`,
        structured: { memories: rows(r.memories, rest.full), next_cursor: r.next_page_token, ...coverageKeys(r.coverage) },
      };
    },
  }),

  list_scheduled: handler({
    description:
      "List your own windowed memories (made with schedule_memory), newest first, as full records. " +
      "state picks which: scheduled (not active yet; the default), expired (window passed) or all. " +
      `${SCOPE_RULE}. limit is the page size (default ${MCP.listLimitCursor}, max ${MAX}); pass a result's next_cursor back as ` +
      "cursor for the next page. Filters: created_after and created_before (RFC3339). Memories other owners shared with you " +
      "are not listed: only the owner manages a schedule.",
    input: listScheduledShape,
    run: async ({ core, subject }, { cursor, ...rest }) => {
      const r = await core.listScheduled(subject, { ...rest, page_token: cursor }, LANE);
      return {
        text: `${r.memories.length} scheduled`,
        structured: { memories: r.memories, next_cursor: r.next_page_token, ...coverageKeys(r.coverage) },
      };
    },
  }),

  get_memory: handler({
    description:
      "Fetch one memory by its id or short_id, as a full record (content, citations, provenance, lifecycle fields). " +
      "Works for archived, superseded, scheduled and expired memories too. " +
      "An id that does not exist, or that you may not read, answers `not found: <id>`.",
    input: getShape,
    run: async ({ core, subject }, a) => {
      const m = await core.getMemory(subject, a);
      return { text: m.content ?? "", structured: m };
    },
  }),

  update_memory: handler({
    description:
      "Change a memory you own. id and content are required: send the current content unchanged to change only other fields. " +
      "shared, tags and summary are optional and an omitted one is kept; tags [] clears the tags and summary \"\" clears the summary. " +
      "Changing the content of a memory whose summary a caller wrote is refused unless summary is sent too (the same one, a new one, or \"\"), " +
      "so a summary never silently goes stale. Rules are always shared. Returns {id, short_id}.",
    input: updateShape,
    run: async ({ core, subject }, a) => {
      const r = await core.updateMemory(subject, a, LANE);
      return { text: "updated", structured: { id: r.id, short_id: r.short_id } };
    },
  }),

  delete_memory: handler({
    description:
      "Delete a memory you own, permanently; this cannot be undone. id is the memory's id or short_id. " +
      "A memory that does not exist, or that is not yours, answers `not found: <id>`.",
    input: deleteShape,
    run: async ({ core, subject }, a) => {
      await core.deleteMemory(subject, a);
      return { text: "deleted", structured: {} };
    },
  }),

  delete_all: handler({
    description:
      "Delete every memory you own in one scope, permanently; this cannot be undone. scope is required and is the only guard, " +
      "so name it exactly. Memories other owners keep in the same scope are not touched. Returns {deleted}: how many were removed.",
    input: deleteAllShape,
    run: async ({ core, subject }, a) => {
      const r = await core.deleteAll(subject, a);
      return { text: "scope cleared", structured: { deleted: r.deleted } };
    },
  }),

  store_discovery: handler({
    description:
      "Save a discovery: something you learned about a code base, backed by where you learned it. kind is map (how some code is " +
      "laid out) or fact (one thing true of it). content, kind, scope and 1 to 50 citations are required; each citation needs " +
      "kind (file, commit, url or repo) and ref, and may carry locator, pin and excerpt. scope must start with \"discovery:\", " +
      "e.g. discovery:repo:github.com/acme/api. Optional: tags, summary, and id to replace an earlier discovery in place. " +
      "Returns {id, short_id}.",
    input: storeDiscoveryShape,
    run: async ({ core, subject }, a) => {
      const r = await core.storeDiscovery(subject, a);
      return { text: `stored ${r.id}`, structured: { id: r.id, short_id: r.short_id } };
    },
  }),

  search_discovery: handler({
    description:
      "Recall discoveries relevant to a natural-language query, best first, as full records with their citations. " +
      `${QUERY_RULE}; ${SCOPE_RULE} (cross_spine spans every discovery scope you may read). ` +
      `kind narrows to map or fact. k is the number of hits (default ${MCP.discoveryK}, max ${MAX}).`,
    input: searchDiscoveryShape,
    run: async ({ core, subject }, a) => {
      const r = await core.searchDiscoveries(subject, a, LANE);
      return {
        text: `${r.discoveries.length} hits`,
        structured: { discoveries: r.discoveries, ...coverageKeys(r.coverage) },
      };
    },
  }),

  set_visibility: handler({
    description:
      "Share a memory you own with every authenticated caller (shared: true) or make it private again (shared: false). " +
      "id and shared are both required. Rules are always shared, so their visibility cannot change. Returns {id, short_id}.",
    input: setVisibilityShape,
    run: async ({ core, subject }, a) => {
      const r = await core.setVisibility(subject, a, LANE);
      return { text: "visibility updated", structured: { id: r.id, short_id: r.short_id } };
    },
  }),

  supersede_memory: handler({
    description:
      "Replace one or more memories you own with one new, correcting memory. The replaced ones leave recall but stay " +
      "fetchable by id, linked to their successor. Takes everything store_memory takes (content, scope, source and category " +
      "required; no transient state, secrets or timestamps) plus supersedes: the ids or short ids being replaced (at least one). " +
      "Either the whole set is accepted or nothing is written. A target that is missing or not yours answers `not found: <ids>`; " +
      "a rule cannot be superseded; a memory already superseded cannot be superseded again (supersede its successor). " +
      "validate_only runs every check and returns {validated, supersedes, targets} without writing. " +
      "idempotency_key makes a retry return the original result. Returns {id, short_id}.",
    input: supersedeShape,
    run: async ({ core, subject }, a) => {
      const r = await core.supersedeMemory(subject, a);
      const inputs = (a.supersedes ?? []).join(", ");
      if (r.validated) {
        return {
          text: `validated, superseding ${inputs}`,
          structured: { validated: true, supersedes: r.supersedes, targets: rows(r.targets, false) },
        };
      }
      return { text: `stored ${r.id}, superseding ${inputs}`, structured: { id: r.id, short_id: r.short_id } };
    },
  }),

  store_rule: handler({
    description:
      "Save a standing rule for a repository or a project, such as a coding convention every agent must follow. " +
      "Call this ONLY when the user explicitly tells you to record a rule; for anything you inferred, use store_memory. " +
      "content, scope and summary are required: scope is rule:repo:<repo> or rule:project:<project>, and summary is one line " +
      "(it is the rule's index entry). Optional: tags, and id to replace an earlier rule in place. Rules are always shared " +
      "with every authenticated caller and cannot be made private or superseded; delete a rule to retire it (archive_memory hides it until restored). Returns {id, short_id}.",
    input: storeRuleShape,
    run: async ({ core, subject }, a) => {
      const r = await core.storeRule(subject, a);
      return { text: `stored rule ${r.id}`, structured: { id: r.id, short_id: r.short_id } };
    },
  }),

  list_rules: handler({
    description:
      `List the COMPLETE rule set for one or more rule:* scopes, up to ${MAX} per scope, oldest first, so you can follow ` +
      "every rule rather than a search's best matches. scopes lists rule:repo:<repo> or rule:project:<project> scopes; omit it for " +
      "every rule scope you may read. tags keeps rules carrying all of them. Rows are compact (id, short_id, summary, tags, scope, " +
      "created_at) unless full is true. When a scope holds very many rules the text line adds a curation advisory.",
    input: listRulesShape,
    run: async ({ core, subject }, a) => {
      const r = await core.listRules(subject, a);
      const line = `${r.rules.length} rules`;
      return {
        text: r.advisory ? `${line} (${r.advisory})` : line,
        structured: { rules: r.rules, ...coverageKeys(r.coverage) },
      };
    },
  }),

  archive_memory: handler({
    description:
      "Take memories you own out of recall without deleting them; restore_memory puts them back. ids lists 1 to " +
      `${MAX} ids or short ids. Each id gets its own outcome, in the order sent: archived, already_archived or not_found ` +
      "(missing or not yours). The call is rejected as a whole only when the list itself is malformed. " +
      "Returns {results: [{requested, id, outcome}]}; a not_found row has no id.",
    input: batchShape,
    run: async ({ core, subject }, a) => {
      const rows = await core.archiveMemory(subject, a);
      return { text: outcomeSummary(rows), structured: { results: batchRows(rows) } };
    },
  }),

  restore_memory: handler({
    description:
      "Put archived memories you own back into recall. ids lists 1 to " +
      `${MAX} ids or short ids. Each id gets its own outcome, in the order sent: restored, not_archived or not_found ` +
      "(missing or not yours). The call is rejected as a whole only when the list itself is malformed. " +
      "Returns {results: [{requested, id, outcome}]}; a not_found row has no id.",
    input: batchShape,
    run: async ({ core, subject }, a) => {
      const rows = await core.restoreMemory(subject, a);
      return { text: outcomeSummary(rows), structured: { results: batchRows(rows) } };
    },
  }),

  related_memories: handler({
    description:
      "Explore the neighbourhood of one memory: its supersession chain (successors and predecessors), memories citing the same " +
      "sources, memories sharing its rarer tags, and its nearest memories by meaning. id is required (id or short_id). " +
      `k widens only the by-meaning neighbours (default ${DEFAULT_LIMITS.relatedDefaultK}, max ${MAX}). ` +
      "Only memories you can recall appear, except that the chain also lists the superseded memories it is made of. Returns {anchor, related: [{memory, edges}], truncated}; each edge names its type " +
      "(supersession, citation, tag, vector) and its evidence. Rows are compact unless full is true.",
    input: relatedShape,
    run: async ({ core, subject }, a) => {
      const r = await core.relatedMemories(subject, a);
      const [anchor] = rows([r.anchor], a.full);
      const related = r.related.map((x) => ({ memory: rows([x.memory], a.full)[0], edges: x.edges }));
      return { text: `${r.related.length} related`, structured: { anchor, related, truncated: r.truncated } };
    },
  }),

  list_tags: handler({
    description:
      "Count the tags on the memories you can recall, most used first, to pick good tag filters or reuse existing tags. " +
      "scope limits the count to one scope; omit it for every scope you may read. " +
      `limit is how many tags to return (default ${DEFAULT_LIMITS.listTagsDefaultLimit}, max ${MAX}); more is true when there are more. ` +
      "A tag shown with count N finds exactly N memories when used as a tags filter.",
    input: listTagsShape,
    run: async ({ core, subject }, a) => {
      const r = await core.listTags(subject, a);
      return { text: `${r.tags.length} tags`, structured: { tags: r.tags, more: r.more } };
    },
  }),
} satisfies Record<ToolName, AnyToolHandler>;

/** Every tool of the table has a handler: one without fails to compile above. */
const REGISTRY: Record<ToolName, AnyToolHandler> = TOOL_HANDLERS;

export function handlerOf(name: ToolName): AnyToolHandler {
  return REGISTRY[name];
}
