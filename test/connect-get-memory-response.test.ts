import { fromBinary, toBinary, toJson } from "@bufbuild/protobuf";
import { createHandlerContext } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { memoryAnswerOf } from "../src/connect/memory-answer.js";
import { toPbMemory } from "../src/connect/index.js";
import { answersInBinary } from "../src/connect/wire-format.js";
import { pointView } from "../src/core/view.js";
import { EngramService, GetMemoryResponseSchema, type GetMemoryResponse } from "../src/gen/engram/v1/engram_pb.js";
import { deepFreeze } from "../src/model/deep-freeze.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

/** A record as the embedded store hands a point read out: frozen all the way down. */
const frozenRecord = (i: number, extra = {}) =>
  deepFreeze({ ...syntheticRecord(i), access_count: 3, last_accessed_at: "2026-11-30T10:00:00.250Z", ...extra });

const getMemoryResponse = memoryAnswerOf<GetMemoryResponse>(GetMemoryResponseSchema)!;

const asSent = (view: Parameters<typeof toPbMemory>[0]) =>
  toBinary(GetMemoryResponseSchema, { $typeName: "engram.v1.GetMemoryResponse", memory: toPbMemory(view) });

describe("a GetMemory answer", () => {
  it("in binary, for a frozen record, puts on the wire exactly the bytes encoding the message writes", () => {
    const view = pointView(frozenRecord(1, { tags: ["a", "b"], citations: [{ kind: "file", ref: "src/x.ts" }] }));
    const bytes = toBinary(GetMemoryResponseSchema, getMemoryResponse(view, true));
    expect(Buffer.from(bytes).equals(Buffer.from(asSent(view)))).toBe(true);
    const decoded = fromBinary(GetMemoryResponseSchema, bytes).memory!;
    expect(decoded.content).toBe(view.content);
    expect(decoded.tags).toEqual(["a", "b"]);
    expect(decoded.accessCount).toBe(3n);
  });

  it("is encoded once per version of a record, and afresh for a new version", () => {
    const v1 = pointView(frozenRecord(2));
    expect(pointView(frozenRecord(2))).not.toBe(v1);
    const first = getMemoryResponse(v1, true);
    expect(getMemoryResponse(v1, true).$unknown).toBe(first.$unknown);
    const v2 = pointView(frozenRecord(2, { content: "the content after an update", access_count: 4 }));
    const next = fromBinary(GetMemoryResponseSchema, toBinary(GetMemoryResponseSchema, getMemoryResponse(v2, true))).memory!;
    expect(next.content).toBe("the content after an update");
    expect(next.accessCount).toBe(4n);
  });

  it("in JSON, or for a record that is not frozen, carries the message itself", () => {
    const frozen = pointView(frozenRecord(3));
    expect(toJson(GetMemoryResponseSchema, getMemoryResponse(frozen, false))).toMatchObject({ memory: { id: frozen.id, content: frozen.content } });
    const fresh = pointView({ ...syntheticRecord(3) });
    expect(Object.isFrozen(fresh)).toBe(false);
    const r = getMemoryResponse(fresh, true);
    expect(r.$unknown).toBeUndefined();
    expect(r.memory?.content).toBe(fresh.content);
  });

  it("is how only a response of one Memory answers: any other response is built from its fields", () => {
    const oneMemory = EngramService.methods.filter((m) => memoryAnswerOf(m.output) !== undefined).map((m) => m.name);
    expect(oneMemory).toEqual(["GetMemory"]);
  });

  it("the view of a frozen record is one view, built once, that no caller can change", () => {
    const rec = frozenRecord(4);
    const view = pointView(rec);
    expect(pointView(rec)).toBe(view);
    expect(() => (view.tags as string[]).push("x")).toThrow(TypeError);
    expect(() => Object.assign(view, { content: "edited" })).toThrow(TypeError);
  });
});

describe("which format the library answers a request in", () => {
  const method = EngramService.method.getMemory;
  const ctx = (protocolName: string, contentType: string, requestMethod = "POST") =>
    createHandlerContext({
      service: EngramService,
      method,
      protocolName,
      requestMethod,
      url: "http://127.0.0.1/engram.v1.EngramService/GetMemory",
      requestHeader: { "content-type": contentType },
    });

  it.each([
    ["connect", "application/proto", true],
    ["connect", "application/json", false],
    ["connect", "application/json; charset=utf-8", false],
    ["grpc", "application/grpc", true],
    ["grpc", "application/grpc+proto", true],
    ["grpc", "application/grpc+json", false],
    ["grpc-web", "application/grpc-web+proto", true],
    ["grpc-web", "application/grpc-web+json", false],
    ["something-else", "application/proto", false],
  ])("%s with %s answers in binary: %s", (protocol, type, binary) => {
    expect(answersInBinary(ctx(protocol, type))).toBe(binary);
  });

  it("a GET, whose encoding is in its query, is not taken for binary", () => {
    expect(answersInBinary(ctx("connect", "application/proto", "GET"))).toBe(false);
  });
});
