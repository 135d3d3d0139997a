/**
 * Where the Connect lane does not derive an operation from its row: the
 * rules of this lane that differ on purpose, each named by its operation.
 * Every other operation's request is read and its response built from the
 * descriptors (request-args.ts, response-message.ts).
 */
import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { undecodedRecord, type ArchiveRow, type Logger, type OperationName, type RelatedEdge, type RelatedResult, type StoreOutcome } from "../core/index.js";
import {
  CitationEvidenceSchema,
  CitationRefSchema,
  EdgeType,
  RelatedEdgeSchema,
  RelatedMemoriesResponseSchema,
  RelatedMemorySchema,
  SetVisibilityRequestSchema,
  SupersessionDirection,
  SupersessionEvidenceSchema,
  TagEvidenceSchema,
  TagWeightSchema,
  VectorEvidenceSchema,
  Visibility,
  type RelatedEdge as PbRelatedEdge,
  type SetVisibilityRequest,
  type StoreMemoriesRequest,
} from "../gen/engram/v1/engram_pb.js";
import { enumArg, opt, storeArgs, toPbMemory } from "./convert.js";
import { refusedRecords } from "./records-apart.js";
import { storeMemoriesResponse } from "./store-memories-response.js";

export type LaneRule = {
  /** Core arguments this lane does not send (the request has no such field). */
  readonly absent?: readonly string[];
  /** Reads the request itself instead of by the kinds row. */
  readonly args?: (req: never, ctx: HandlerContext) => Record<string, unknown>;
  /** Puts the result in the response's shape before it is built from the descriptor. */
  readonly shape?: (result: never) => Record<string, unknown>;
  /** Builds the response itself. */
  readonly answer?: (result: never, ctx: HandlerContext, log: Logger) => unknown;
};

export const LANE_RULES: Readonly<Partial<Record<OperationName, LaneRule>>> = {
  // Records the JSON gate refused one by one reach the core as refusals of their own, so the others are still stored.
  storeMemories: {
    args: (req: StoreMemoriesRequest, ctx) => {
      const refused = refusedRecords(ctx.values);
      return {
        memories: req.memories.map((m, i) => {
          const refusal = refused?.get(i);
          return refusal === undefined ? storeArgs(m) : undecodedRecord(refusal);
        }),
        stop_at_first_error: req.stopAtFirstError,
      };
    },
    answer: (outcomes: readonly StoreOutcome[], ctx, log) => storeMemoriesResponse(outcomes, log, ctx.method.name),
  },
  // The contract says visibility as an enum; the core takes shared as a boolean, unset when the enum is.
  setVisibility: {
    args: (req: SetVisibilityRequest) => {
      const visibility = enumArg(SetVisibilityRequestSchema, "visibility", req.visibility);
      return { id: opt(req.id), shared: visibility === Visibility.SHARED ? true : visibility === Visibility.PRIVATE ? false : undefined };
    },
  },
  // Not a field of SearchDiscoveriesRequest: an empty scope spans every discovery scope.
  searchDiscoveries: { absent: ["cross_spine"] },
  archiveMemory: { shape: (rows: readonly ArchiveRow[]) => ({ results: rows }) },
  restoreMemory: { shape: (rows: readonly ArchiveRow[]) => ({ results: rows }) },
  // An edge's evidence is a oneof chosen by the edge's type.
  relatedMemories: {
    answer: (r: RelatedResult) =>
      create(RelatedMemoriesResponseSchema, {
        anchor: toPbMemory(r.anchor),
        related: r.related.map((x) => create(RelatedMemorySchema, { memory: toPbMemory(x.memory), edges: x.edges.map(toPbEdge) })),
        truncated: r.truncated,
      }),
  },
};

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
