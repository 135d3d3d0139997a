/**
 * The Connect lane reads each request and builds each response from the
 * descriptors: the rules it derives by, held apart from the RPCs that use
 * them.
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { OPERATION_ROWS } from "../src/core/index.js";
import { argsReader } from "../src/connect/request-args.js";
import { responseMessage } from "../src/connect/response-message.js";
import {
  ArchiveMemoryResponseSchema,
  ArchiveOutcome,
  DeleteAllResponseSchema,
  EngramService,
  ListMemoriesRequestSchema,
  ScheduleMemoryRequestSchema,
  SearchDiscoveriesRequestSchema,
} from "../src/gen/engram/v1/engram_pb.js";

describe("reading a request by its operation's kinds", () => {
  it("sends an empty proto3 string as absent, a uint64 as a number and a list as it came", () => {
    const read = argsReader(ListMemoriesRequestSchema, ["scope", "limit", "tags", "cross_spine", "page_token"]);
    const args = read(create(ListMemoriesRequestSchema, { scope: "", limit: 7n, tags: ["a"], crossSpine: true }));
    expect(args).toEqual({ scope: undefined, limit: 7, tags: ["a"], cross_spine: true, page_token: undefined });
  });

  it("reads a Timestamp as the RFC3339 text the core checks", () => {
    const read = argsReader(ScheduleMemoryRequestSchema, ["not_before"]);
    expect(read(create(ScheduleMemoryRequestSchema, { notBefore: { seconds: 1_700_000_000n, nanos: 5 } }))).toEqual({
      not_before: "2023-11-14T22:13:20.000000005Z",
    });
  });

  it("refuses to build a reader for an argument the request has no field for, unless the lane declares it absent", () => {
    expect(() => argsReader(SearchDiscoveriesRequestSchema, ["query", "cross_spine"])).toThrow(/no field for the core argument cross_spine/);
    expect(argsReader(SearchDiscoveriesRequestSchema, ["query", "cross_spine"], ["cross_spine"])(create(SearchDiscoveriesRequestSchema, { query: "q" }))).toEqual({
      query: "q",
    });
  });
});

describe("building a response from a core result", () => {
  it("names an enum value by the core's word and keeps a row's order", () => {
    const res = responseMessage(ArchiveMemoryResponseSchema, {
      results: [
        { requested: "a", id: "id-a", outcome: "already_archived" },
        { requested: "b", id: "", outcome: "not_found" },
      ],
    }) as ReturnType<typeof create<typeof ArchiveMemoryResponseSchema>>;
    expect(res.results.map((r) => [r.requested, r.id, r.outcome])).toEqual([
      ["a", "id-a", ArchiveOutcome.ALREADY_ARCHIVED],
      ["b", "", ArchiveOutcome.NOT_FOUND],
    ]);
  });

  it("leaves an optional field unset when the result has no value for it", () => {
    const plain = responseMessage(DeleteAllResponseSchema, { deleted: 3 }) as ReturnType<typeof create<typeof DeleteAllResponseSchema>>;
    expect(plain.deleted).toBe(3n);
    expect(plain.wouldDelete).toBeUndefined();
    const dry = responseMessage(DeleteAllResponseSchema, { deleted: 0, would_delete: 4 }) as ReturnType<typeof create<typeof DeleteAllResponseSchema>>;
    expect(dry.wouldDelete).toBe(4n);
  });
});

describe("the service", () => {
  it("has one method per row of the operation table, by the same name", () => {
    expect(EngramService.methods.map((m) => m.localName).sort()).toEqual(OPERATION_ROWS.map((r) => r.name).sort());
  });
});
