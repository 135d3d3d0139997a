import { create } from "@bufbuild/protobuf";
import { CONNECT_CODE_NAME } from "../argerror/index.js";
import type { Logger, StoreOutcome } from "../core/index.js";
import { RecordErrorSchema, StoreMemoriesResponseSchema, StoreMemoryResultSchema, type StoreMemoriesResponse } from "../gen/engram/v1/engram_pb.js";
import { classifyAndLog } from "../observe/index.js";

/**
 * One result per record, in request order. A refused record carries the code
 * name and text its own write would have answered for it alone, classified and
 * logged the same way (an unclassified failure is logged, under the batch's
 * `procedure`, and sent as "internal error").
 */
export function storeMemoriesResponse(outcomes: readonly StoreOutcome[], log: Logger, procedure: string): StoreMemoriesResponse {
  return create(StoreMemoriesResponseSchema, {
    results: outcomes.map((o) => {
      if ("stored" in o) return create(StoreMemoryResultSchema, { id: o.stored.id, shortId: o.stored.short_id });
      const c = classifyAndLog(o.refused, log, "request", { procedure });
      return create(StoreMemoryResultSchema, { error: create(RecordErrorSchema, { code: CONNECT_CODE_NAME[c.code], message: c.message }) });
    }),
  });
}
