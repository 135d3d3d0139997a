import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { Core, Logger } from "../core/index.js";
import {
  DeleteMemoryResponseSchema,
  EngramService,
  GetMemoryResponseSchema,
  ListMemoriesResponseSchema,
  ListScopesResponseSchema,
  ScopeCountSchema,
  SearchMemoriesResponseSchema,
  SetVisibilityResponseSchema,
  StoreMemoryResponseSchema,
  UpdateMemoryResponseSchema,
  Visibility,
} from "../gen/engram/v1/engram_pb.js";
import { count, coverageFields, opt, storeArgs, toPbHidden, toPbMemory } from "./convert.js";
import { toConnectError } from "./error-mapper.js";
import { subjectOf } from "./subject-context.js";

const LANE = "connect" as const;

/**
 * The Connect lane: parse the proto, call the core, shape the response.
 * Nothing here validates or picks a default.
 */
export function engramServiceImpl(core: Core, log: Logger): Partial<ServiceImpl<typeof EngramService>> {
  const guard =
    <Req, Res>(procedure: string, fn: (req: Req, ctx: HandlerContext) => Promise<Res>) =>
    async (req: Req, ctx: HandlerContext): Promise<Res> => {
      try {
        return await fn(req, ctx);
      } catch (err) {
        throw toConnectError(err, log, procedure);
      }
    };

  return {
    listScopes: guard("ListScopes", async (_req, ctx) => {
      const r = await core.listScopes(subjectOf(ctx));
      return create(ListScopesResponseSchema, {
        scopes: r.scopes.map((s) => create(ScopeCountSchema, { scope: s.scope, count: BigInt(s.count) })),
        approximate: r.approximate,
      });
    }),

    listMemories: guard("ListMemories", async (req, ctx) => {
      const r = await core.listMemories(
        subjectOf(ctx),
        {
          scope: opt(req.scope),
          cross_spine: req.crossSpine,
          limit: count(req.limit),
          offset: count(req.offset),
          categories: req.categories,
          visibility: req.visibility,
          tags: req.tags,
          full: req.full,
          created_after: opt(req.createdAfter),
          created_before: opt(req.createdBefore),
          page_token: opt(req.pageToken),
          cursor_mode: req.cursorMode,
          include_archived: req.includeArchived,
          include_superseded: req.includeSuperseded,
          include_scheduled: req.includeScheduled,
        },
        LANE,
      );
      return create(ListMemoriesResponseSchema, {
        memories: r.memories.map(toPbMemory),
        total: BigInt(r.total),
        nextPageToken: r.next_page_token,
        recallGateHidden: toPbHidden(r.recall_gate_hidden),
        ...coverageFields(r.coverage),
      });
    }),

    searchMemories: guard("SearchMemories", async (req, ctx) => {
      const r = await core.searchMemories(
        subjectOf(ctx),
        {
          query: opt(req.query),
          scope: opt(req.scope),
          k: count(req.k),
          tags: req.tags,
          full: req.full,
          created_after: opt(req.createdAfter),
          created_before: opt(req.createdBefore),
          categories: req.categories,
          cross_spine: req.crossSpine,
          include_archived: req.includeArchived,
          include_superseded: req.includeSuperseded,
          include_scheduled: req.includeScheduled,
        },
        LANE,
      );
      return create(SearchMemoriesResponseSchema, {
        memories: r.memories.map(toPbMemory),
        recallGateHidden: toPbHidden(r.recall_gate_hidden),
        ...coverageFields(r.coverage),
      });
    }),

    getMemory: guard("GetMemory", async (req, ctx) => {
      const m = await core.getMemory(subjectOf(ctx), { id: opt(req.id) });
      return create(GetMemoryResponseSchema, { memory: toPbMemory(m) });
    }),

    storeMemory: guard("StoreMemory", async (req, ctx) => {
      const r = await core.storeMemory(subjectOf(ctx), storeArgs(req));
      return create(StoreMemoryResponseSchema, { id: r.id, shortId: r.short_id });
    }),

    updateMemory: guard("UpdateMemory", async (req, ctx) => {
      const r = await core.updateMemory(
        subjectOf(ctx),
        {
          id: opt(req.id),
          content: req.content,
          shared: req.shared,
          tags: req.tags,
          summary: req.summary,
          update_mask: req.updateMask?.paths ?? [],
        },
        LANE,
      );
      return create(UpdateMemoryResponseSchema, { id: r.id, shortId: r.short_id });
    }),

    deleteMemory: guard("DeleteMemory", async (req, ctx) => {
      await core.deleteMemory(subjectOf(ctx), { id: opt(req.id) });
      return create(DeleteMemoryResponseSchema, {});
    }),

    setVisibility: guard("SetVisibility", async (req, ctx) => {
      const shared =
        req.visibility === Visibility.SHARED ? true : req.visibility === Visibility.PRIVATE ? false : undefined;
      const r = await core.setVisibility(subjectOf(ctx), { id: opt(req.id), shared }, LANE);
      return create(SetVisibilityResponseSchema, { id: r.id, shortId: r.short_id });
    }),
  };
}

