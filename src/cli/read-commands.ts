import { create } from "@bufbuild/protobuf";
import type { Command } from "commander";
import { collectList, parseUint, table } from "../cli-kit/index.js";
import {
  ListRulesRequestSchema,
  ListRulesResponseSchema,
  ListScheduledRequestSchema,
  ListScheduledResponseSchema,
  ListScopesRequestSchema,
  ListScopesResponseSchema,
  ListTagsRequestSchema,
  ListTagsResponseSchema,
  RelatedMemoriesRequestSchema,
  RelatedMemoriesResponseSchema,
  SearchDiscoveriesRequestSchema,
  SearchDiscoveriesResponseSchema,
  SupersessionDirection,
  type RelatedEdge,
} from "../gen/engram/v1/engram_pb.js";
import { addClientFlags, resolveClient, type ClientFlagValues } from "./client-flags.js";
import { addRecallScopeFlags, checkScopePair } from "./flag-rules.js";
import { emit } from "./output.js";
import { SERVER_DEFAULTS } from "./server-defaults.js";
import { callEngram } from "./rpc.js";
import { coverageFooter, memoryTable, summaryCell } from "./text.js";

/**
 * The reads an agent has over MCP that the original CLI lacked: scopes,
 * tags, scheduled records, rules, a record's neighbourhood and discovery
 * search. Each is one RPC; the server validates every field and the CLI
 * only maps flags onto the request, except that list-scheduled, like search
 * and list, refuses --scope with --cross-spine (the CLI-tier rule).
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

export function registerReadCommands(program: Command): void {
  const scopes = program
    .command("list-scopes")
    .summary("list the scopes the caller may read, with record counts")
    .description("List every scope holding records the caller may read, and how many (ListScopes).");
  addClientFlags(scopes).action(async (o: ClientFlagValues, cmd: Command) => {
    const settings = resolveClient(o, cmd);
    const res = await callEngram(settings, (c, opts) => c.listScopes(create(ListScopesRequestSchema, {}), opts));
    emit(settings.output, ListScopesResponseSchema, res, () => {
      const body = table(["SCOPE", "COUNT"], res.scopes.map((s) => [s.scope, s.count.toString()]));
      return res.approximate ? `${body}\napproximate: true` : body;
    });
  });

  const tags = program
    .command("list-tags")
    .summary("count tags, most used first")
    .description("Count the tags on recall-visible records in one scope or every readable scope (ListTags).")
    .option("--scope <scope>", "count in this scope only (absent: every readable scope)")
    .option("--limit <uint>", `how many tags; 0 means the server default (${SERVER_DEFAULTS.listTagsLimit})`, parseUint);
  addClientFlags(tags).action(async (o: ClientFlagValues & { scope?: string; limit?: bigint }, cmd: Command) => {
    const settings = resolveClient(o, cmd);
    const req = create(ListTagsRequestSchema, { scope: o.scope ?? "", limit: o.limit ?? 0n });
    const res = await callEngram(settings, (c, opts) => c.listTags(req, opts));
    emit(settings.output, ListTagsResponseSchema, res, () => {
      const body = table(["TAG", "COUNT"], res.tags.map((t) => [t.tag, t.count.toString()]));
      return res.more ? `${body}\nmore: true` : body;
    });
  });

  const scheduled = program
    .command("list-scheduled")
    .summary("list the caller's records that have a recall window")
    .description("List the caller's own windowed records: not yet due, lapsed, or both (ListScheduled).");
  addRecallScopeFlags(scheduled)
    .option("--state <state>", "scheduled (the default), active, expired or all")
    .option("--limit <uint>", `page size; 0 means the server default (${SERVER_DEFAULTS.cursorLimit})`, parseUint)
    .option("--created-after <rfc3339>", "only records created at or after this instant")
    .option("--created-before <rfc3339>", "only records created before this instant")
    .option("--page-token <token>", "continue from a previous page's next_page_token");
  addClientFlags(scheduled).action(
    async (
      o: ClientFlagValues & {
        scope?: string;
        crossSpine?: boolean;
        state?: string;
        limit?: bigint;
        createdAfter?: string;
        createdBefore?: string;
        pageToken?: string;
      },
      cmd: Command,
    ) => {
      checkScopePair(o);
      const settings = resolveClient(o, cmd);
      const req = create(ListScheduledRequestSchema, {
        scope: o.scope ?? "",
        crossSpine: o.crossSpine ?? false,
        state: o.state ?? "",
        limit: o.limit ?? 0n,
        createdAfter: o.createdAfter ?? "",
        createdBefore: o.createdBefore ?? "",
        pageToken: o.pageToken ?? "",
      });
      const res = await callEngram(settings, (c, opts) => c.listScheduled(req, opts));
      emit(settings.output, ListScheduledResponseSchema, res, () => {
        const lines = [memoryTable(res.memories, { score: false, now: new Date() })];
        if (o.crossSpine) lines.push(coverageFooter(res));
        if (res.nextPageToken !== "") lines.push(`next_page_token: ${res.nextPageToken}`);
        return lines.join("\n");
      });
    },
  );

  const rules = program
    .command("list-rules")
    .summary("list standing rules, oldest first")
    .description("List rules in the named rule scopes, or in every readable rule scope (ListRules).")
    .option("--scopes <list>", "rule scopes to read, e.g. rule:repo:github.com/acme/api (repeat or comma-separate; absent: all)", collectList)
    .option("--tags <list>", "only rules carrying every one of these tags (repeat or comma-separate)", collectList)
    .option("--full", "return the rules' content, not only their summaries");
  addClientFlags(rules).action(async (o: ClientFlagValues & { scopes?: string[]; tags?: string[]; full?: boolean }, cmd: Command) => {
    const settings = resolveClient(o, cmd);
    const req = create(ListRulesRequestSchema, { scopes: o.scopes ?? [], tags: o.tags ?? [], full: o.full ?? false });
    const res = await callEngram(settings, (c, opts) => c.listRules(req, opts));
    emit(settings.output, ListRulesResponseSchema, res, () => {
      // A compact rule row carries no category (every row of ListRules is a
      // rule); the table names it rather than leave the column blank.
      const rows = res.rules.map((r) => (r.category === "" ? { ...r, category: "rule" } : r));
      const lines = [memoryTable(rows, { score: false, now: new Date() })];
      if (res.advisory !== "") lines.push(`advisory: ${res.advisory}`);
      return lines.join("\n");
    });
  });

  const related = program
    .command("related")
    .summary("show a record's neighbours and why they are related")
    .description("Show the records related to one record: its supersession chain, shared citations, rare shared tags and vector neighbours (RelatedMemories).")
    .argument("<id>", "UUID or short id of the anchor record")
    .option("--k <uint>", `how many vector neighbours; 0 means the server default (${SERVER_DEFAULTS.relatedK})`, parseUint)
    .option("--full", "return full records instead of compact rows");
  addClientFlags(related).action(async (id: string, o: ClientFlagValues & { k?: bigint; full?: boolean }, cmd: Command) => {
    const settings = resolveClient(o, cmd);
    const req = create(RelatedMemoriesRequestSchema, { id, k: o.k ?? 0n, full: o.full ?? false });
    const res = await callEngram(settings, (c, opts) => c.relatedMemories(req, opts));
    emit(settings.output, RelatedMemoriesResponseSchema, res, () => {
      const head = res.anchor === undefined ? "anchor: -" : `anchor: ${res.anchor.shortId}  ${summaryCell(res.anchor)}`;
      const rows = res.related.map((r) => [r.memory?.shortId ?? "-", edgeWords(r.edges), r.memory === undefined ? "" : summaryCell(r.memory)]);
      const lines = [head, "", table(["SHORT_ID", "EDGES", "SUMMARY"], rows)];
      if (res.truncated) lines.push("truncated: true");
      return lines.join("\n");
    });
  });

  const discoveries = program
    .command("search-discoveries")
    .summary("recall discoveries by meaning and words")
    .description("Recall discovery records for a query, best first, in one discovery scope or all of them (SearchDiscoveries).")
    .option("--query <text>", "what to recall (required)")
    .option("--scope <scope>", "a discovery: scope (absent: every discovery scope)")
    .option("--k <uint>", `how many hits; 0 means the server default (${SERVER_DEFAULTS.discoveryK})`, parseUint)
    .option("--kind <kind>", "only map or only fact discoveries");
  addClientFlags(discoveries).action(
    async (o: ClientFlagValues & { query?: string; scope?: string; k?: bigint; kind?: string }, cmd: Command) => {
      const settings = resolveClient(o, cmd);
      const req = create(SearchDiscoveriesRequestSchema, { query: o.query ?? "", scope: o.scope ?? "", k: o.k ?? 0n, kind: o.kind ?? "" });
      const res = await callEngram(settings, (c, opts) => c.searchDiscoveries(req, opts));
      emit(settings.output, SearchDiscoveriesResponseSchema, res, () => memoryTable(res.discoveries, { score: true, now: new Date() }));
    },
  );
}
