import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { ARCHIVE_OUTCOMES, undecodedRecord, type Core, type EveryArgOf, type Logger, type OperationName } from "../core/index.js";
import type { RelatedEdge as PbRelatedEdge } from "../gen/engram/v1/engram_pb.js";
import {
  ArchiveMemoryResponseSchema,
  ArchiveOutcome,
  ArchiveResultSchema,
  CitationEvidenceSchema,
  CitationRefSchema,
  EdgeType,
  ListRulesResponseSchema,
  ListScheduledResponseSchema,
  ListTagsResponseSchema,
  MigrateStatusResponseSchema,
  RelatedEdgeSchema,
  RelatedMemoriesResponseSchema,
  RelatedMemorySchema,
  RestoreMemoryResponseSchema,
  ScheduleMemoryRequestSchema,
  ScheduleMemoryResponseSchema,
  SchemaVersionBucketSchema,
  SearchDiscoveriesResponseSchema,
  StoreDiscoveryResponseSchema,
  SupersedeMemoryResponseSchema,
  SupersessionDirection,
  SupersessionEvidenceSchema,
  TagCountSchema,
  TagEvidenceSchema,
  TagWeightSchema,
  VectorEvidenceSchema,
  DeleteAllResponseSchema,
  DeleteMemoryResponseSchema,
  StoreRuleResponseSchema,
  EngramService,
  ListMemoriesResponseSchema,
  ListScopesResponseSchema,
  ScopeCountSchema,
  SearchMemoriesResponseSchema,
  SetVisibilityRequestSchema,
  SetVisibilityResponseSchema,
  StoreMemoryResponseSchema,
  UpdateMemoryResponseSchema,
  Visibility,
} from "../gen/engram/v1/engram_pb.js";
import { citationsArg, count, coverageFields, enumArg, opt, rfc3339Of, storeArgs, toPbHidden, toPbMemory } from "./convert.js";
import { getMemoryResponse } from "./get-memory-response.js";
import { refusedRecords } from "./records-apart.js";
import { storeMemoriesResponse } from "./store-memories-response.js";
import { answersInBinary } from "./wire-format.js";
import type { ArchiveRow, RelatedEdge } from "../core/index.js";
import { toConnectError } from "./error-mapper.js";
import { requireSubject } from "./subject-context.js";

const LANE = "connect" as const;

/**
 * Every core operation is an RPC of the same name, and every RPC an
 * operation: adding one to the core or to the contract without the other
 * fails to compile here.
 */
type Rpc = keyof ServiceImpl<typeof EngramService>;
type Unmatched = Exclude<Rpc, OperationName> | Exclude<OperationName, Rpc>;
export const RPCS_ARE_OPERATIONS: [Unmatched] extends [never] ? true : Unmatched = true;

/**
 * The Connect lane: parse the proto, call the core, shape the response.
 * Nothing here validates or picks a default.
 */
export function engramServiceImpl(core: Core, log: Logger): ServiceImpl<typeof EngramService> {
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
      const r = await core.listScopes(requireSubject(ctx));
      return create(ListScopesResponseSchema, {
        scopes: r.scopes.map((s) => create(ScopeCountSchema, { scope: s.scope, count: BigInt(s.count) })),
        approximate: r.approximate,
      });
    }),

    listMemories: guard("ListMemories", async (req, ctx) => {
      const r = await core.listMemories(
        requireSubject(ctx),
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
        } satisfies EveryArgOf<"listMemories">,
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
        requireSubject(ctx),
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
        } satisfies EveryArgOf<"searchMemories">,
        LANE,
      );
      return create(SearchMemoriesResponseSchema, {
        memories: r.memories.map(toPbMemory),
        recallGateHidden: toPbHidden(r.recall_gate_hidden),
        ...coverageFields(r.coverage),
      });
    }),

    getMemory: guard("GetMemory", async (req, ctx) => {
      const m = await core.getMemory(requireSubject(ctx), { id: opt(req.id) } satisfies EveryArgOf<"getMemory">);
      return getMemoryResponse(m, answersInBinary(ctx));
    }),

    storeMemory: guard("StoreMemory", async (req, ctx) => {
      const r = await core.storeMemory(requireSubject(ctx), storeArgs(req));
      return create(StoreMemoryResponseSchema, { id: r.id, shortId: r.short_id });
    }),

    storeMemories: guard("StoreMemories", async (req, ctx) => {
      const refused = refusedRecords(ctx.values);
      const outcomes = await core.storeMemories(requireSubject(ctx), {
        memories: req.memories.map((m, i) => {
          const refusal = refused?.get(i);
          return refusal === undefined ? storeArgs(m) : undecodedRecord(refusal);
        }),
        stop_at_first_error: req.stopAtFirstError,
      } satisfies EveryArgOf<"storeMemories">);
      return storeMemoriesResponse(outcomes, log);
    }),

    updateMemory: guard("UpdateMemory", async (req, ctx) => {
      const r = await core.updateMemory(
        requireSubject(ctx),
        {
          id: opt(req.id),
          content: req.content,
          shared: req.shared,
          tags: req.tags,
          summary: req.summary,
          update_mask: req.updateMask?.paths ?? [],
        } satisfies EveryArgOf<"updateMemory">,
        LANE,
      );
      return create(UpdateMemoryResponseSchema, { id: r.id, shortId: r.short_id });
    }),

    deleteMemory: guard("DeleteMemory", async (req, ctx) => {
      await core.deleteMemory(requireSubject(ctx), { id: opt(req.id) } satisfies EveryArgOf<"deleteMemory">);
      return create(DeleteMemoryResponseSchema, {});
    }),

    setVisibility: guard("SetVisibility", async (req, ctx) => {
      const visibility = enumArg(SetVisibilityRequestSchema, "visibility", req.visibility);
      const shared = visibility === Visibility.SHARED ? true : visibility === Visibility.PRIVATE ? false : undefined;
      const r = await core.setVisibility(requireSubject(ctx), { id: opt(req.id), shared } satisfies EveryArgOf<"setVisibility">, LANE);
      return create(SetVisibilityResponseSchema, { id: r.id, shortId: r.short_id });
    }),

    scheduleMemory: guard("ScheduleMemory", async (req, ctx) => {
      const r = await core.scheduleMemory(requireSubject(ctx), {
        ...storeArgs(req),
        not_before: rfc3339Of(ScheduleMemoryRequestSchema, "not_before", req.notBefore),
        not_after: rfc3339Of(ScheduleMemoryRequestSchema, "not_after", req.notAfter),
      } satisfies EveryArgOf<"scheduleMemory">);
      return create(ScheduleMemoryResponseSchema, { id: r.id, shortId: r.short_id });
    }),

    listScheduled: guard("ListScheduled", async (req, ctx) => {
      const r = await core.listScheduled(
        requireSubject(ctx),
        {
          scope: opt(req.scope),
          cross_spine: req.crossSpine,
          state: opt(req.state),
          limit: count(req.limit),
          created_after: opt(req.createdAfter),
          created_before: opt(req.createdBefore),
          page_token: opt(req.pageToken),
        } satisfies EveryArgOf<"listScheduled">,
        LANE,
      );
      return create(ListScheduledResponseSchema, {
        memories: r.memories.map(toPbMemory),
        nextPageToken: r.next_page_token,
        ...coverageFields(r.coverage),
      });
    }),

    storeDiscovery: guard("StoreDiscovery", async (req, ctx) => {
      const r = await core.storeDiscovery(requireSubject(ctx), {
        content: opt(req.content),
        kind: opt(req.kind),
        citations: citationsArg(req.citations),
        scope: opt(req.scope),
        tags: req.tags,
        summary: opt(req.summary),
        id: opt(req.id),
      } satisfies EveryArgOf<"storeDiscovery">);
      return create(StoreDiscoveryResponseSchema, { id: r.id, shortId: r.short_id });
    }),

    searchDiscoveries: guard("SearchDiscoveries", async (req, ctx) => {
      const r = await core.searchDiscoveries(
        requireSubject(ctx),
        {
          query: opt(req.query),
          scope: opt(req.scope),
          k: count(req.k),
          kind: opt(req.kind),
          // Not a field of SearchDiscoveriesRequest: an empty scope spans every discovery scope.
          cross_spine: undefined,
        } satisfies EveryArgOf<"searchDiscoveries">,
        LANE,
      );
      return create(SearchDiscoveriesResponseSchema, { discoveries: r.discoveries.map(toPbMemory) });
    }),

    listRules: guard("ListRules", async (req, ctx) => {
      const r = await core.listRules(requireSubject(ctx), { scopes: req.scopes, tags: req.tags, full: req.full } satisfies EveryArgOf<"listRules">);
      return create(ListRulesResponseSchema, {
        rules: r.rules.map(toPbMemory),
        advisory: r.advisory,
        ...coverageFields(r.coverage),
      });
    }),

    supersedeMemory: guard("SupersedeMemory", async (req, ctx) => {
      const r = await core.supersedeMemory(requireSubject(ctx), {
        ...storeArgs(req),
        supersedes: req.supersedes,
        validate_only: req.validateOnly,
      } satisfies EveryArgOf<"supersedeMemory">);
      return r.validated
        ? create(SupersedeMemoryResponseSchema, { validated: true, supersedes: r.supersedes, targets: r.targets.map(toPbMemory) })
        : create(SupersedeMemoryResponseSchema, { id: r.id, shortId: r.short_id });
    }),

    archiveMemory: guard("ArchiveMemory", async (req, ctx) => {
      const rows = await core.archiveMemory(requireSubject(ctx), { ids: req.ids } satisfies EveryArgOf<"archiveMemory">);
      return create(ArchiveMemoryResponseSchema, { results: rows.map(toPbArchiveResult) });
    }),

    restoreMemory: guard("RestoreMemory", async (req, ctx) => {
      const rows = await core.restoreMemory(requireSubject(ctx), { ids: req.ids } satisfies EveryArgOf<"restoreMemory">);
      return create(RestoreMemoryResponseSchema, { results: rows.map(toPbArchiveResult) });
    }),

    relatedMemories: guard("RelatedMemories", async (req, ctx) => {
      const r = await core.relatedMemories(requireSubject(ctx), { id: opt(req.id), k: count(req.k), full: req.full } satisfies EveryArgOf<"relatedMemories">);
      return create(RelatedMemoriesResponseSchema, {
        anchor: toPbMemory(r.anchor),
        related: r.related.map((x) => create(RelatedMemorySchema, { memory: toPbMemory(x.memory), edges: x.edges.map(toPbEdge) })),
        truncated: r.truncated,
      });
    }),

    listTags: guard("ListTags", async (req, ctx) => {
      const r = await core.listTags(requireSubject(ctx), { scope: opt(req.scope), limit: count(req.limit) } satisfies EveryArgOf<"listTags">);
      return create(ListTagsResponseSchema, {
        tags: r.tags.map((t) => create(TagCountSchema, { tag: t.tag, count: BigInt(t.count) })),
        more: r.more,
      });
    }),

    migrateStatus: guard("MigrateStatus", async (_req, ctx) => {
      requireSubject(ctx);
      const s = await core.migrateStatus();
      const bucket = (b: { version: number; count: number }) => create(SchemaVersionBucketSchema, { version: b.version, count: BigInt(b.count) });
      return create(MigrateStatusResponseSchema, {
        buckets: s.buckets.map(bucket),
        absent: BigInt(s.absent),
        future: s.future.map(bucket),
        futureTotal: BigInt(s.future_total),
        total: BigInt(s.total),
        currentVersion: s.current_version,
        pending: BigInt(s.pending),
      });
    }),

    storeRule: guard("StoreRule", async (req, ctx) => {
      const r = await core.storeRule(requireSubject(ctx), {
        content: opt(req.content),
        scope: opt(req.scope),
        summary: opt(req.summary),
        tags: req.tags,
        id: opt(req.id),
      } satisfies EveryArgOf<"storeRule">);
      return create(StoreRuleResponseSchema, { id: r.id, shortId: r.short_id });
    }),

    deleteAll: guard("DeleteAll", async (req, ctx) => {
      const r = await core.deleteAll(requireSubject(ctx), { scope: opt(req.scope), dry_run: req.dryRun } satisfies EveryArgOf<"deleteAll">);
      return create(DeleteAllResponseSchema, {
        deleted: BigInt(r.deleted),
        ...(r.would_delete !== undefined ? { wouldDelete: BigInt(r.would_delete) } : {}),
      });
    }),
  };
}


/** The core's outcome words as the enum of the same names: a word without its enum value fails to compile. */
const OUTCOME = Object.fromEntries(
  ARCHIVE_OUTCOMES.map((w) => [w, ArchiveOutcome[w.toUpperCase() as Uppercase<ArchiveRow["outcome"]>]]),
) as Record<ArchiveRow["outcome"], ArchiveOutcome>;

function toPbArchiveResult(r: ArchiveRow) {
  return create(ArchiveResultSchema, { requested: r.requested, id: r.id, outcome: OUTCOME[r.outcome] });
}

function toPbEdge(e: RelatedEdge): PbRelatedEdge {
  switch (e.type) {
    case "supersession":
      return create(RelatedEdgeSchema, {
        type: EdgeType.SUPERSESSION,
        evidence: {
          case: "supersession",
          value: create(SupersessionEvidenceSchema, {
            direction: e.direction === "successor" ? SupersessionDirection.SUCCESSOR : SupersessionDirection.PREDECESSOR,
            depth: e.depth,
          }),
        },
      });
    case "citation":
      return create(RelatedEdgeSchema, {
        type: EdgeType.CITATION,
        evidence: {
          case: "citation",
          value: create(CitationEvidenceSchema, { sharedCitations: e.shared_citations.map((c) => create(CitationRefSchema, c)) }),
        },
      });
    case "tag":
      return create(RelatedEdgeSchema, {
        type: EdgeType.TAG,
        evidence: {
          case: "tag",
          value: create(TagEvidenceSchema, { sharedTags: e.shared_tags.map((t) => create(TagWeightSchema, t)), tagWeight: e.tag_weight }),
        },
      });
    case "vector":
      return create(RelatedEdgeSchema, { type: EdgeType.VECTOR, evidence: { case: "vector", value: create(VectorEvidenceSchema, { score: e.score }) } });
  }
}
