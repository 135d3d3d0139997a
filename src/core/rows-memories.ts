/**
 * The operation table's rows for the memory calls every agent uses: store
 * (one, many, windowed), recall (search, list, the windowed ones, one by id),
 * change and delete. The MCP tools of these rows are documented on
 * docs/tools-memories.md, in this order.
 */
import { RULES } from "../argerror/index.js";
import { deleteAll } from "./delete-all.js";
import { deleteMemory } from "./delete-memory.js";
import { getMemory } from "./get-memory.js";
import { countMemories } from "./count-memories.js";
import { DEFAULT_LIMITS, LANE_POLICY } from "./limits.js";
import { listMemories } from "./list-memories.js";
import { SCHEDULE_STATES, listScheduled } from "./list-scheduled.js";
import { ADDS, READS, REPLACES, laned, plain } from "./operation-row.js";
import { scheduleMemory } from "./schedule-memory.js";
import { searchMemories } from "./search-memories.js";
import { RECORD_TOOL, STORE_KINDS } from "./store-kinds.js";
import { storeMemories } from "./store-memories.js";
import { storeMemory } from "./store-memory.js";
import { idAnswer, coverageKeys, rows, storeRows } from "./tool-answers.js";
import {
  CREATED_AFTER_DOC,
  CREATED_BEFORE_DOC,
  CROSS_SPINE_DOC,
  CURSOR_DOC,
  ID_DOC,
  MAX_RECALL as MAX,
  QUERY_DOC,
  QUERY_RULE,
  RECALL_FILTER_DOCS,
  SCOPE_DOC,
  SCOPE_RULE,
  STORE_DOCS,
} from "./tool-field-docs.js";
import { updateMemory } from "./update-memory.js";
import type { MemoryView } from "./view.js";

const STORE = STORE_KINDS;
const MCP = LANE_POLICY.mcp;

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

/** A count takes a list's filters but the view switch: it has no rows to show. */
const { full: _rowsOnly, ...COUNT_FILTERS } = RECALL_FILTERS;

const WINDOW_RULES = [
  RULES["schedule-window-at-least-one-bound"].sentence,
  RULES["window-not-before-before-not-after"].sentence,
  RULES["discovery-not-schedulable"].sentence,
].join("; ");

export const MEMORY_ROWS = {
  storeMemory: plain(storeMemory, STORE, {
    hints: ADDS,
    verb: "store",
    tool: {
      name: RECORD_TOOL,
      description:
        "Save one durable memory for later sessions: a decision, a preference, a convention or a gotcha worth knowing next time. " +
        "Do not store transient state (what you are doing right now, task progress), secrets (tokens, passwords, keys, credentials) " +
        "or timestamps (the server records when each memory was created). " +
        "Required: content, scope, source (user-said when the user said it, agent-inferred when you concluded it) and category " +
        "(decision, preference, convention or gotcha; rules and discoveries have store_rule and store_discovery, and scopes under " +
        "rule: and discovery: belong to them). Optional: tags, repo, workspace, worktree, base_dir, a one-line summary used in " +
        "recall, citations, and an idempotency_key so that a retry returns the original record instead of a duplicate. " +
        "Returns {id, short_id}; either one works wherever an id is accepted.",
      fields: STORE_DOCS,
      answer: (r) => idAnswer(`stored ${r.id}`, r),
    },
  }),

  storeMemories: plain(
    storeMemories,
    { memories: "records", stop_at_first_error: "boolean" },
    {
      hints: ADDS,
      tool: {
        name: "store_memories",
        description:
          `Save many durable memories in one call, as ${RECORD_TOOL} would save each (everything ${RECORD_TOOL} says applies to every record). ` +
          `memories lists 1 to ${DEFAULT_LIMITS.maxBatchRecords} records, each with ${RECORD_TOOL}'s arguments; the call is rejected as a whole only ` +
          "when the list itself is malformed or too long. Each record gets its own result, in the order sent: {id, short_id} when stored, or " +
          `{error: {code, message}} with exactly what ${RECORD_TOOL} would answer for that record; a refused record does not stop the others ` +
          "unless stop_at_first_error is true, which writes nothing after it and ends the results there. An idempotency_key works per record. " +
          "Returns {results: [...]}.",
        fields: {
          memories: `1 to ${DEFAULT_LIMITS.maxBatchRecords} records, each with ${RECORD_TOOL}'s arguments`,
          stop_at_first_error: "write nothing after the first refused record; results end with its error (default false)",
        },
        answer: (outcomes, a, lane) => {
          const results = storeRows(outcomes, lane);
          const stored = results.filter((r) => "id" in r).length;
          // Of the records sent: with stop_at_first_error the results end early.
          return { text: `stored ${stored} of ${a.memories?.length ?? results.length}`, structured: { results } };
        },
      },
    },
  ),

  scheduleMemory: plain(
    scheduleMemory,
    { ...STORE, not_before: "string", not_after: "string" },
    {
      hints: ADDS,
      verb: "schedule",
      tool: {
        name: "schedule_memory",
        description:
          "Save a memory that is recalled only inside a time window: a reminder for later (not_before) or a fact with an expiry " +
          `(not_after). Everything ${RECORD_TOOL} says applies: no transient state, secrets or timestamps in the content; content, scope, ` +
          `source and category are required. The window: ${WINDOW_RULES}; not_after must be in the future. Both bounds are RFC3339. ` +
          "Outside its window the memory is not recalled by search or list, but get_memory and list_scheduled still show it. " +
          "Returns {id, short_id}.",
        fields: {
          ...STORE_DOCS,
          not_before: "RFC3339 instant before which the memory is not recalled",
          not_after: "RFC3339 instant from which the memory is no longer recalled; must be in the future",
        },
        answer: (r) => idAnswer(`scheduled ${r.id}`, r),
      },
    },
  ),

  searchMemories: laned(
    searchMemories,
    { query: "string", k: "count", ...RECALL_FILTERS },
    {
      hints: READS,
      verb: "search",
      verbRules: ["scope-cross-spine-mutually-exclusive"],
      tool: {
        name: "search_memory",
        description:
          "Recall the memories most relevant to a natural-language query, best first. " +
          `${QUERY_RULE}; ${SCOPE_RULE}. ` +
          `k is the number of hits (default ${MCP.searchK}, max ${MAX}). ` +
          "Filters: tags (a hit carries all of them), categories (a hit is in one of them), created_after and created_before (RFC3339). " +
          "Hits are compact (id, short_id, summary, scope, category, tags, created_at, score) unless full is true. " +
          "Archived, superseded, expired and not-yet-active memories are never recalled; get_memory still fetches them by id. " +
          "With cross_spine the result also names the scopes searched (searched_scopes, scopes_truncated).",
        fields: { query: QUERY_DOC, k: `how many hits (default ${MCP.searchK}, max ${MAX})`, ...RECALL_FILTER_DOCS },
        answer: (r, a) => ({
          text: `${r.memories.length} hits`,
          structured: { memories: rows(r.memories, a.full), ...coverageKeys(r.coverage) },
        }),
      },
    },
  ),

  listMemories: laned(
    listMemories,
    { limit: "count", offset: "count", ...RECALL_FILTERS, visibility: "string", page_token: "string", cursor_mode: "boolean" },
    {
      hints: READS,
      verb: "list",
      verbRules: ["scope-cross-spine-mutually-exclusive", "paging-trio-mutually-exclusive"],
      paged: true,
      tool: {
        name: "list_memory",
        description:
          "List memories newest first, one page at a time. " +
          `${SCOPE_RULE}. ` +
          `limit is the page size (default ${MCP.listLimitCursor}, max ${MAX}). Pass a result's next_cursor back as cursor for the next page; ` +
          "an empty next_cursor means there are no more. " +
          "Filters: tags (all of them), categories (any of them), created_after and created_before (RFC3339). " +
          "Rows are compact unless full is true. Archived, superseded, expired and not-yet-active memories are not listed. " +
          "With cross_spine the result also names the scopes listed (searched_scopes, scopes_truncated).",
        // MCP lists always page by cursor, so offset paging and its switch are not offered.
        fields: { limit: `page size (default ${MCP.listLimitCursor}, max ${MAX})`, page_token: CURSOR_DOC, ...RECALL_FILTER_DOCS },
        rename: { page_token: "cursor" },
        answer: (r, a) => ({
          text: `${r.memories.length} memories`,
          structured: { memories: rows(r.memories, a.full), next_cursor: r.next_page_token, ...coverageKeys(r.coverage) },
        }),
      },
    },
  ),

  countMemories: plain(
    countMemories,
    COUNT_FILTERS,
    {
      hints: READS,
      verb: "count",
      verbRules: ["scope-cross-spine-mutually-exclusive"],
      tool: {
        name: "count_memories",
        description:
          "Count the memories a list_memory call with the same filters would page through, without reading them: a cheap way " +
          `to decide whether to page or to narrow the filters first. ${SCOPE_RULE}. ` +
          "Filters: tags (all of them), categories (any of them), created_after and created_before (RFC3339). " +
          "Archived, superseded, expired and not-yet-active memories are not counted. Returns {count}; with cross_spine also the " +
          "scopes counted (searched_scopes, scopes_truncated).",
        fields: {
          scope: RECALL_FILTER_DOCS.scope,
          cross_spine: RECALL_FILTER_DOCS.cross_spine,
          tags: RECALL_FILTER_DOCS.tags,
          categories: RECALL_FILTER_DOCS.categories,
          created_after: CREATED_AFTER_DOC,
          created_before: CREATED_BEFORE_DOC,
        },
        answer: (r) => ({ text: `${r.count} memories`, structured: { count: r.count, ...coverageKeys(r.coverage) } }),
      },
    },
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
    {
      hints: READS,
      verb: "list-scheduled",
      verbRules: ["scope-cross-spine-mutually-exclusive"],
      paged: true,
      tool: {
        name: "list_scheduled",
        description:
          "List your own windowed memories (made with schedule_memory), newest first, as full records. " +
          "state picks which: scheduled (not active yet; the default), expired (window passed) or all. " +
          `${SCOPE_RULE}. limit is the page size (default ${MCP.listLimitCursor}, max ${MAX}); pass a result's next_cursor back as ` +
          "cursor for the next page. Filters: created_after and created_before (RFC3339). Memories other owners shared with you " +
          "are not listed: only the owner manages a schedule.",
        fields: {
          scope: SCOPE_DOC,
          cross_spine: CROSS_SPINE_DOC,
          state: `one of ${SCHEDULE_STATES.join(" | ")}: not active yet (the default), inside its window now, window passed, or any of them`,
          limit: `page size (default ${MCP.listLimitCursor}, max ${MAX})`,
          created_after: CREATED_AFTER_DOC,
          created_before: CREATED_BEFORE_DOC,
          page_token: CURSOR_DOC,
        },
        rename: { page_token: "cursor" },
        answer: (r) => ({
          text: `${r.memories.length} scheduled`,
          structured: { memories: r.memories, next_cursor: r.next_page_token, ...coverageKeys(r.coverage) },
        }),
      },
    },
  ),

  getMemory: plain(
    getMemory,
    { id: "string" },
    {
      hints: READS,
      verb: "get",
      tool: {
        name: "get_memory",
        description:
          "Fetch one memory by its id or short_id, as a full record (content, citations, provenance, lifecycle fields). " +
          "Works for archived, superseded, scheduled and expired memories too. " +
          "An id that does not exist, or that you may not read, answers `not found: <id>`.",
        fields: { id: ID_DOC },
        answer: (m: MemoryView) => ({ text: m.content ?? "", structured: m }),
      },
    },
  ),

  updateMemory: laned(
    updateMemory,
    { id: "string", content: "string", shared: "boolean", tags: "strings", summary: "string", update_mask: "strings" },
    {
      hints: REPLACES,
      verb: "update",
      tool: {
        name: "update_memory",
        description:
          "Change a memory you own. id and content are required: send the current content unchanged to change only other fields. " +
          "shared, tags and summary are optional and an omitted one is kept; tags [] clears the tags and summary \"\" clears the summary. " +
          "Changing the content of a memory whose summary a caller wrote is refused unless summary is sent too (the same one, a new one, or \"\"), " +
          "so a summary never silently goes stale. Rules are always shared. Returns {id, short_id}.",
        // Connect's update_mask has no MCP counterpart: an omitted field is unchanged.
        fields: {
          id: ID_DOC,
          content: "the new content (required on this tool; send the old content to keep it)",
          shared: "true shares the memory with every authenticated caller, false makes it private; omit to keep",
          tags: "the new tag set; omit to keep, [] to clear",
          summary: 'the new one-line summary; omit to keep, "" to clear',
        },
        answer: (r) => ({ text: "updated", structured: { id: r.id, short_id: r.short_id } }),
      },
    },
  ),

  deleteMemory: plain(
    deleteMemory,
    { id: "string" },
    {
      hints: REPLACES,
      verb: "delete",
      tool: {
        name: "delete_memory",
        description:
          "Delete a memory you own, permanently; this cannot be undone. id is the memory's id or short_id. " +
          "A memory that does not exist, or that is not yours, answers `not found: <id>`.",
        fields: { id: ID_DOC },
        answer: () => ({ text: "deleted", structured: {} }),
      },
    },
  ),

  deleteAll: plain(
    deleteAll,
    { scope: "string", dry_run: "boolean" },
    {
      hints: REPLACES,
      verb: "delete-all",
      tool: {
        name: "delete_all",
        description:
          "Delete every memory you own in one scope, permanently; this cannot be undone. scope is required and is the only guard, " +
          "so name it exactly. Memories other owners keep in the same scope are not touched. Returns {deleted}: how many were removed.",
        fields: { scope: "the scope to clear of your own records" },
        answer: (r) => ({ text: "scope cleared", structured: { deleted: r.deleted } }),
      },
    },
  ),
};
