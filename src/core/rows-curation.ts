/**
 * The operation table's rows for curation: discoveries, visibility,
 * supersession, rules, archive and restore, a record's neighbourhood, tag
 * and scope counts, and the store-wide schema report. The MCP tools of these
 * rows are documented on docs/tools-curation.md, in this order.
 */
import { archiveMemory, restoreMemory } from "./archive.js";
import { DEFAULT_LIMITS, LANE_POLICY } from "./limits.js";
import { listRules } from "./list-rules.js";
import { listScopes } from "./list-scopes.js";
import { listTags } from "./list-tags.js";
import { migrateStatus } from "./migrate-status.js";
import { ADDS, READS, SETS, laned, plain, storeWide, subjectOnly } from "./operation-row.js";
import { relatedMemories } from "./related-memories.js";
import { searchDiscoveries } from "./search-discoveries.js";
import { setVisibility } from "./set-visibility.js";
import { storeDiscovery } from "./store-discovery.js";
import { RECORD_TOOL, STORE_KINDS } from "./store-kinds.js";
import { storeRule } from "./store-rule.js";
import { supersedeMemory } from "./supersede-memory.js";
import { batchAnswer, coverageKeys, idAnswer, rows } from "./tool-answers.js";
import { ID_DOC, MAX_RECALL as MAX, QUERY_DOC, QUERY_RULE, SCOPE_RULE, STORE_DOCS } from "./tool-field-docs.js";

const STORE = STORE_KINDS;
const MCP = LANE_POLICY.mcp;
const BATCH = { ids: "strings" } as const;
const IDS_DOC = `ids or short ids, 1 to ${MAX}`;
const BATCH_TAIL =
  "The call is rejected as a whole only when the list itself is malformed. Returns {results: [{requested, id, outcome}]}; a not_found row has no id.";

export const CURATION_ROWS = {
  storeDiscovery: plain(
    storeDiscovery,
    { content: "string", kind: "string", citations: "citations", scope: "string", tags: "strings", summary: "string", id: "string" },
    {
      hints: ADDS,
      verb: "store-discovery",
      tool: {
        name: "store_discovery",
        description:
          "Save a discovery: something you learned about a code base, backed by where you learned it. kind is map (how some code is " +
          "laid out) or fact (one thing true of it). content, kind, scope and 1 to 50 citations are required; each citation needs " +
          "kind (file, commit, url or repo) and ref, and may carry locator, pin and excerpt. scope must start with \"discovery:\", " +
          "e.g. discovery:repo:github.com/acme/api. Optional: tags, summary, and id to replace an earlier discovery in place. " +
          "Returns {id, short_id}.",
        fields: {
          content: "what was found, in full",
          kind: "map (how some code is laid out) | fact (one thing that is true of it)",
          citations: "where it was found: 1 to 50 citations",
          scope: 'a discovery scope, e.g. discovery:repo:github.com/acme/api (must start with "discovery:")',
          tags: STORE_DOCS.tags,
          summary: STORE_DOCS.summary,
          id: "replace this discovery in place instead of adding one",
        },
        answer: (r) => idAnswer(`stored ${r.id}`, r),
      },
    },
  ),

  searchDiscoveries: laned(
    searchDiscoveries,
    { query: "string", scope: "string", k: "count", kind: "string", cross_spine: "boolean" },
    {
      hints: READS,
      verb: "search-discoveries",
      tool: {
        name: "search_discovery",
        description:
          "Recall discoveries relevant to a natural-language query, best first, as full records with their citations. " +
          `${QUERY_RULE}; ${SCOPE_RULE} (cross_spine spans every discovery scope you may read). ` +
          `kind narrows to map or fact. k is the number of hits (default ${MCP.discoveryK}, max ${MAX}).`,
        fields: {
          query: QUERY_DOC,
          scope: `discovery scope to search; ${SCOPE_RULE}`,
          cross_spine: "span every discovery scope you may read; any scope given is ignored",
          kind: "only map or only fact discoveries",
          k: `how many hits (default ${MCP.discoveryK}, max ${MAX})`,
        },
        answer: (r) => ({ text: `${r.discoveries.length} hits`, structured: { discoveries: r.discoveries, ...coverageKeys(r.coverage) } }),
      },
    },
  ),

  setVisibility: laned(
    setVisibility,
    { id: "string", shared: "boolean" },
    {
      hints: SETS,
      tool: {
        name: "set_visibility",
        description:
          "Share a memory you own with every authenticated caller (shared: true) or make it private again (shared: false). " +
          "id and shared are both required. Rules are always shared, so their visibility cannot change. Returns {id, short_id}.",
        fields: { id: ID_DOC, shared: "true shares the memory with every authenticated caller, false makes it private" },
        answer: (r) => ({ text: "visibility updated", structured: { id: r.id, short_id: r.short_id } }),
      },
    },
  ),

  supersedeMemory: plain(
    supersedeMemory,
    { ...STORE, supersedes: "strings", validate_only: "boolean" },
    {
      hints: SETS,
      verb: "supersede",
      tool: {
        name: "supersede_memory",
        description:
          "Replace one or more memories you own with one new, correcting memory. The replaced ones leave recall but stay " +
          `fetchable by id, linked to their successor. Takes everything ${RECORD_TOOL} takes (content, scope, source and category ` +
          "required; no transient state, secrets or timestamps) plus supersedes: the ids or short ids being replaced (at least one). " +
          "Either the whole set is accepted or nothing is written. A target that is missing or not yours answers `not found: <ids>`; " +
          "a rule cannot be superseded; a memory already superseded cannot be superseded again (supersede its successor). " +
          "validate_only runs every check and returns {validated, supersedes, targets} without writing. " +
          "idempotency_key makes a retry return the original result. Returns {id, short_id}.",
        fields: {
          ...STORE_DOCS,
          // Advertised for clients that check arguments before sending; an empty list still reaches the core and gets its envelope.
          supersedes: { doc: "ids or short ids of the memories this one replaces", minItems: 1 },
          validate_only: "run every check and report what would be superseded, without writing",
        },
        answer: (r, a) => {
          const inputs = (a.supersedes ?? []).join(", ");
          if (r.validated) {
            return {
              text: `validated, superseding ${inputs}`,
              structured: { validated: true, supersedes: r.supersedes, targets: rows(r.targets, false) },
            };
          }
          return idAnswer(`stored ${r.id}, superseding ${inputs}`, r);
        },
      },
    },
  ),

  storeRule: plain(
    storeRule,
    { content: "string", scope: "string", summary: "string", tags: "strings", id: "string" },
    {
      hints: ADDS,
      verb: "store-rule",
      tool: {
        name: "store_rule",
        description:
          "Save a standing rule for a repository or a project, such as a coding convention every agent must follow. " +
          `Call this ONLY when the user explicitly tells you to record a rule; for anything you inferred, use ${RECORD_TOOL}. ` +
          "content, scope and summary are required: scope is rule:repo:<repo> or rule:project:<project>, and summary is one line " +
          "(it is the rule's index entry). Optional: tags, and id to replace an earlier rule in place. Rules are always shared " +
          "with every authenticated caller and cannot be made private or superseded; delete a rule to retire it (archive_memory hides it until restored). Returns {id, short_id}.",
        fields: {
          content: "the rule, in full",
          scope: "rule:repo:<repo> or rule:project:<project>",
          summary: "one line naming the rule; it is the rule's index entry",
          tags: STORE_DOCS.tags,
          id: "replace this rule in place instead of adding one",
        },
        answer: (r) => idAnswer(`stored rule ${r.id}`, r),
      },
    },
  ),

  listRules: plain(
    listRules,
    { scopes: "strings", tags: "strings", full: "boolean" },
    {
      hints: READS,
      verb: "list-rules",
      tool: {
        name: "list_rules",
        description:
          `List the COMPLETE rule set for one or more rule:* scopes, up to ${MAX} per scope, oldest first, so you can follow ` +
          "every rule rather than a search's best matches. scopes lists rule:repo:<repo> or rule:project:<project> scopes; omit it for " +
          "every rule scope you may read. tags keeps rules carrying all of them. Rows are compact (id, short_id, summary, tags, scope, " +
          "created_at) unless full is true. When a scope holds very many rules the text line adds a curation advisory.",
        fields: {
          scopes: "rule scopes to list; omit for every rule scope you may read",
          tags: "only rules carrying all of these tags",
          full: "return full records instead of the compact rule view (default false)",
        },
        answer: (r) => {
          const line = `${r.rules.length} rules`;
          return { text: r.advisory ? `${line} (${r.advisory})` : line, structured: { rules: r.rules, ...coverageKeys(r.coverage) } };
        },
      },
    },
  ),

  archiveMemory: plain(archiveMemory, BATCH, {
    hints: SETS,
    verb: "archive",
    tool: {
      name: "archive_memory",
      description:
        "Take memories you own out of recall without deleting them; restore_memory puts them back. ids lists 1 to " +
        `${MAX} ids or short ids. Each id gets its own outcome, in the order sent: archived, already_archived or not_found ` +
        `(missing or not yours). ${BATCH_TAIL}`,
      fields: { ids: IDS_DOC },
      answer: batchAnswer,
    },
  }),

  restoreMemory: plain(restoreMemory, BATCH, {
    hints: SETS,
    verb: "restore",
    tool: {
      name: "restore_memory",
      description:
        "Put archived memories you own back into recall. ids lists 1 to " +
        `${MAX} ids or short ids. Each id gets its own outcome, in the order sent: restored, not_archived or not_found ` +
        `(missing or not yours). ${BATCH_TAIL}`,
      fields: { ids: IDS_DOC },
      answer: batchAnswer,
    },
  }),

  relatedMemories: plain(
    relatedMemories,
    { id: "string", k: "count", full: "boolean" },
    {
      hints: READS,
      verb: "related",
      tool: {
        name: "related_memories",
        description:
          "Explore the neighbourhood of one memory: its supersession chain (successors and predecessors), memories citing the same " +
          "sources, memories sharing its rarer tags, and its nearest memories by meaning. id is required (id or short_id). " +
          `k widens only the by-meaning neighbours (default ${DEFAULT_LIMITS.relatedDefaultK}, max ${MAX}). ` +
          "Only memories you can recall appear, except that the chain also lists the superseded memories it is made of. Returns {anchor, related: [{memory, edges}], truncated}; each edge names its type " +
          "(supersession, citation, tag, vector) and its evidence. Rows are compact unless full is true.",
        fields: {
          id: ID_DOC,
          k: `how many nearest neighbours by meaning (default ${DEFAULT_LIMITS.relatedDefaultK}, max ${MAX})`,
          full: "return full records instead of the compact view (default false)",
        },
        answer: (r, a) => {
          const [anchor] = rows([r.anchor], a.full);
          const related = r.related.map((x) => ({ memory: rows([x.memory], a.full)[0], edges: x.edges }));
          return { text: `${r.related.length} related`, structured: { anchor, related, truncated: r.truncated } };
        },
      },
    },
  ),

  listTags: plain(
    listTags,
    { scope: "string", limit: "count" },
    {
      hints: READS,
      verb: "list-tags",
      tool: {
        name: "list_tags",
        description:
          "Count the tags on the memories you can recall, most used first, to pick good tag filters or reuse existing tags. " +
          "scope limits the count to one scope; omit it for every scope you may read. " +
          `limit is how many tags to return (default ${DEFAULT_LIMITS.listTagsDefaultLimit}, max ${MAX}); more is true when there are more. ` +
          "A tag shown with count N finds exactly N memories when used as a tags filter.",
        fields: {
          scope: "count tags in this scope only; omit for every scope you may read",
          limit: `how many tags (default ${DEFAULT_LIMITS.listTagsDefaultLimit}, max ${MAX})`,
        },
        answer: (r) => ({ text: `${r.tags.length} tags`, structured: { tags: r.tags, more: r.more } }),
      },
    },
  ),

  // No tool reads the scope list or the schema report: agents have none for
  // them; Connect, the CLI and the console read them.
  listScopes: subjectOnly(listScopes, { hints: READS, verb: "list-scopes" }),

  migrateStatus: storeWide((deps) => migrateStatus(deps), { hints: READS, verb: "migration-status" }),
};
