import { table } from "../cli-kit/index.js";
import { SupersessionDirection, type RelatedEdge } from "../gen/engram/v1/engram_pb.js";
import type { VerbTable } from "./operation-verb.js";
import { RECALL_SCOPE_FLAGS, TIME_FILTER_FLAGS } from "./recall-flags.js";
import { SERVER_DEFAULTS } from "./server-defaults.js";
import { coverageFooter, memoryTable, summaryCell } from "./text.js";

/**
 * The reads an agent has over MCP that the original CLI lacked: scopes,
 * tags, scheduled records, rules, a record's neighbourhood and discovery
 * search. The server validates every field; the CLI only maps flags onto
 * the request.
 */

/** `vector 0.8123`, `tag a,b`, `citation file:src/a.ts`, `successor 1`: why a neighbour is related. */
export function edgeWords(edges: readonly RelatedEdge[]): string {
  return edges
    .map((e) => {
      switch (e.evidence.case) {
        case "vector":
          return `vector ${e.evidence.value.score.toFixed(4)}`;
        case "tag":
          return `tag ${e.evidence.value.sharedTags.map((t) => t.tag).join(",")}`;
        case "citation":
          return `citation ${e.evidence.value.sharedCitations.map((c) => `${c.kind}:${c.ref}`).join(",")}`;
        case "supersession": {
          const s = e.evidence.value;
          const dir = s.direction === SupersessionDirection.SUCCESSOR ? "successor" : s.direction === SupersessionDirection.PREDECESSOR ? "predecessor" : "chain";
          return `${dir} ${s.depth}`;
        }
        default:
          return "unspecified";
      }
    })
    .join("; ");
}

export const READ_VERBS = {
  "list-scopes": {
    summary: "list the scopes the caller may read, with record counts",
    description: (rpc) => `List every scope holding records the caller may read, and how many (${rpc}).`,
    flags: {},
    text: (res) => {
      const body = table(["SCOPE", "COUNT"], res.scopes.map((s) => [s.scope, s.count.toString()]));
      return res.approximate ? `${body}\napproximate: true` : body;
    },
  },

  "list-tags": {
    summary: "count tags, most used first",
    description: (rpc) => `Count the tags on recall-visible records in one scope or every readable scope (${rpc}).`,
    flags: {
      scope: "count in this scope only (absent: every readable scope)",
      limit: `how many tags; 0 means the server default (${SERVER_DEFAULTS.listTagsLimit})`,
    },
    text: (res) => {
      const body = table(["TAG", "COUNT"], res.tags.map((t) => [t.tag, t.count.toString()]));
      return res.more ? `${body}\nmore: true` : body;
    },
  },

  "list-scheduled": {
    summary: "list the caller's records that have a recall window",
    description: (rpc) => `List the caller's own windowed records: not yet due, lapsed, or both (${rpc}).`,
    flags: {
      ...RECALL_SCOPE_FLAGS,
      state: "scheduled (the default), active, expired or all",
      limit: `page size; 0 means the server default (${SERVER_DEFAULTS.cursorLimit})`,
      ...TIME_FILTER_FLAGS,
      pageToken: { doc: "continue from a previous page's next_page_token", placeholder: "token" },
    },
    text: (res, o) => {
      const lines = [memoryTable(res.memories, { score: false, now: new Date() })];
      if (o.crossSpine) lines.push(coverageFooter(res));
      if (res.nextPageToken !== "") lines.push(`next_page_token: ${res.nextPageToken}`);
      return lines.join("\n");
    },
  },

  "list-rules": {
    summary: "list standing rules, oldest first",
    description: (rpc) => `List rules in the named rule scopes, or in every readable rule scope (${rpc}).`,
    flags: {
      scopes: "rule scopes to read, e.g. rule:repo:github.com/acme/api (repeat or comma-separate; absent: all)",
      tags: "only rules carrying every one of these tags (repeat or comma-separate)",
      full: "return the rules' content, not only their summaries",
    },
    text: (res) => {
      // A compact rule row carries no category (every row here is a
      // rule); the table names it rather than leave the column blank.
      const rows = res.rules.map((r) => (r.category === "" ? { ...r, category: "rule" } : r));
      const lines = [memoryTable(rows, { score: false, now: new Date() })];
      if (res.advisory !== "") lines.push(`advisory: ${res.advisory}`);
      return lines.join("\n");
    },
  },

  related: {
    summary: "show a record's neighbours and why they are related",
    description: (rpc) =>
      `Show the records related to one record: its supersession chain, shared citations, rare shared tags and vector neighbours (${rpc}).`,
    argument: ["<id>", "UUID or short id of the anchor record"],
    flags: {
      k: `how many vector neighbours; 0 means the server default (${SERVER_DEFAULTS.relatedK})`,
      full: "return full records instead of compact rows",
    },
    text: (res) => {
      const head = res.anchor === undefined ? "anchor: -" : `anchor: ${res.anchor.shortId}  ${summaryCell(res.anchor)}`;
      const rows = res.related.map((r) => [r.memory?.shortId ?? "-", edgeWords(r.edges), r.memory === undefined ? "" : summaryCell(r.memory)]);
      const lines = [head, "", table(["SHORT_ID", "EDGES", "SUMMARY"], rows)];
      if (res.truncated) lines.push("truncated: true");
      return lines.join("\n");
    },
  },

  "search-discoveries": {
    summary: "recall discoveries by meaning and words",
    description: (rpc) => `Recall discovery records for a query, best first, in one discovery scope or all of them (${rpc}).`,
    flags: {
      query: { doc: "what to recall (required)", placeholder: "text" },
      scope: "a discovery: scope (absent: every discovery scope)",
      k: `how many hits; 0 means the server default (${SERVER_DEFAULTS.discoveryK})`,
      kind: "only map or only fact discoveries",
    },
    text: (res) => memoryTable(res.discoveries, { score: true, now: new Date() }),
  },
} as const satisfies Partial<VerbTable>;
