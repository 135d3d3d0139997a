import { create } from "@bufbuild/protobuf";
import type { Command } from "commander";
import { collectList, parseUint } from "../cli-kit/index.js";
import {
  CountMemoriesRequestSchema,
  CountMemoriesResponseSchema,
  GetMemoryRequestSchema,
  GetMemoryResponseSchema,
  ListMemoriesRequestSchema,
  ListMemoriesResponseSchema,
  SearchMemoriesRequestSchema,
  SearchMemoriesResponseSchema,
} from "../gen/engram/v1/engram_pb.js";
import { addClientFlags, resolveClient, type ClientFlagValues } from "./client-flags.js";
import { addRecallScopeFlags, checkPagingTrio, checkScopePair } from "./flag-rules.js";
import { emit } from "./output.js";
import { SERVER_DEFAULTS } from "./server-defaults.js";
import { noteEmptyScope } from "./empty-scope-note.js";
import { callEngram } from "./rpc.js";
import { coverageFooter, memoryTable, recordView } from "./text.js";

/** Reads: search, list, count, get. None of them writes (get bumps the access counter server-side). */

type ScopeFlags = { scope?: string; crossSpine?: boolean };
type FilterFlags = {
  tags?: string[];
  categories?: string[];
  full?: boolean;
  createdAfter?: string;
  createdBefore?: string;
  includeArchived?: boolean;
  includeSuperseded?: boolean;
  includeScheduled?: boolean;
};

/** The filters every recall verb takes; `--full` only where there are rows to show. */
function addFilterFlags(cmd: Command, rows = true): Command {
  cmd
    .option("--tags <list>", "only records carrying every one of these tags (repeat or comma-separate)", collectList)
    .option("--categories <list>", "only records in any of these categories (repeat or comma-separate)", collectList);
  if (rows) cmd.option("--full", "return full records (content, citations) instead of compact rows");
  return cmd
    .option("--created-after <rfc3339>", "only records created at or after this instant")
    .option("--created-before <rfc3339>", "only records created before this instant")
    .option("--include-archived", "also return archived records")
    .option("--include-superseded", "also return superseded records")
    .option("--include-scheduled", "also return records outside their recall window (not yet due, or lapsed)");
}

function filterFields(o: FilterFlags) {
  return {
    tags: o.tags ?? [],
    categories: o.categories ?? [],
    full: o.full ?? false,
    createdAfter: o.createdAfter ?? "",
    createdBefore: o.createdBefore ?? "",
    includeArchived: o.includeArchived ?? false,
    includeSuperseded: o.includeSuperseded ?? false,
    includeScheduled: o.includeScheduled ?? false,
  };
}

export function registerRecallCommands(program: Command): void {
  const search = program
    .command("search")
    .summary("recall records by meaning and words")
    .description("Recall records for a query, best first (SearchMemories).");
  search.option("--query <text>", "what to recall (required)");
  addRecallScopeFlags(search);
  search.option("--k <uint>", `how many hits to return; 0 means the server default (${SERVER_DEFAULTS.searchK})`, parseUint);
  addFilterFlags(search);
  addClientFlags(search).action(async (o: ClientFlagValues & ScopeFlags & FilterFlags & { query?: string; k?: bigint }, cmd: Command) => {
    checkScopePair(o);
    const settings = resolveClient(o, cmd);
    const req = create(SearchMemoriesRequestSchema, {
      query: o.query ?? "",
      scope: o.scope ?? "",
      crossSpine: o.crossSpine ?? false,
      k: o.k ?? 0n,
      ...filterFields(o),
    });
    const res = await callEngram(settings, (c, opts) => c.searchMemories(req, opts));
    emit(settings.output, SearchMemoriesResponseSchema, res, () => {
      const body = memoryTable(res.memories, { score: true, now: new Date() });
      return o.crossSpine ? `${body}\n${coverageFooter(res)}` : body;
    });
    await noteEmptyScope(settings, req.scope, res.memories.length === 0);
  });

  const list = program
    .command("list")
    .summary("list records, newest first")
    .description("List recall-visible records in one scope or across every readable scope (ListMemories).");
  addRecallScopeFlags(list);
  list
    .option(
      "--limit <uint>",
      `page size; 0 means the server default (the whole maximum of ${SERVER_DEFAULTS.maxRecall} with offset paging, ${SERVER_DEFAULTS.cursorLimit} with cursor paging)`,
      parseUint,
    )
    .option("--offset <uint>", "skip this many records (offset paging)", parseUint)
    .option("--cursor-mode", "use cursor paging from the first page")
    .option("--page-token <token>", "continue from a previous page's next_page_token")
    .option("--visibility <visibility>", "only private or only shared records (absent: both)");
  addFilterFlags(list);
  addClientFlags(list).action(
    async (
      o: ClientFlagValues &
        ScopeFlags &
        FilterFlags & { limit?: bigint; offset?: bigint; cursorMode?: boolean; pageToken?: string; visibility?: string },
      cmd: Command,
    ) => {
      checkScopePair(o);
      checkPagingTrio(o);
      const settings = resolveClient(o, cmd);
      const req = create(ListMemoriesRequestSchema, {
        scope: o.scope ?? "",
        crossSpine: o.crossSpine ?? false,
        limit: o.limit ?? 0n,
        offset: o.offset ?? 0n,
        cursorMode: o.cursorMode ?? false,
        pageToken: o.pageToken ?? "",
        visibility: o.visibility ?? "",
        ...filterFields(o),
      });
      const res = await callEngram(settings, (c, opts) => c.listMemories(req, opts));
      emit(settings.output, ListMemoriesResponseSchema, res, () => {
        const lines = [memoryTable(res.memories, { score: false, now: new Date() })];
        if (o.crossSpine) lines.push(coverageFooter(res));
        if (res.nextPageToken !== "") lines.push(`next_page_token: ${res.nextPageToken}`);
        return lines.join("\n");
      });
      await noteEmptyScope(settings, req.scope, res.memories.length === 0 && req.offset === 0n && req.pageToken === "");
    },
  );

  const count = program
    .command("count")
    .summary("count the records a list would return")
    .description("Count the recall-visible records a list with the same filters would page through, without reading them (CountMemories).");
  addRecallScopeFlags(count);
  addFilterFlags(count, false);
  addClientFlags(count).action(async (o: ClientFlagValues & ScopeFlags & Omit<FilterFlags, "full">, cmd: Command) => {
    checkScopePair(o);
    const settings = resolveClient(o, cmd);
    const { full: _rowsOnly, ...filters } = filterFields(o);
    const req = create(CountMemoriesRequestSchema, { scope: o.scope ?? "", crossSpine: o.crossSpine ?? false, ...filters });
    const res = await callEngram(settings, (c, opts) => c.countMemories(req, opts));
    emit(settings.output, CountMemoriesResponseSchema, res, () => (o.crossSpine ? `${res.count}\n${coverageFooter(res)}` : `${res.count}`));
    await noteEmptyScope(settings, req.scope, res.count === 0n);
  });

  const get = program
    .command("get")
    .summary("fetch one record by id or short id")
    .description("Fetch one full record by UUID or short id (GetMemory); archived and superseded records are returned too.")
    .argument("<id>", "UUID or short id");
  addClientFlags(get).action(async (id: string, o: ClientFlagValues, cmd: Command) => {
    const settings = resolveClient(o, cmd);
    const req = create(GetMemoryRequestSchema, { id });
    const res = await callEngram(settings, (c, opts) => c.getMemory(req, opts));
    emit(settings.output, GetMemoryResponseSchema, res, () =>
      res.memory === undefined ? "" : recordView(res.memory, new Date()),
    );
  });
}
