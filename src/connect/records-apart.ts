import { createContextKey, type ContextValues } from "@connectrpc/connect";
import type { ArgError } from "../argerror/index.js";

/**
 * Request lists whose entries the JSON diagnosis refuses one by one, each in the
 * words of the single method it names (`operation`), instead of refusing
 * the whole call: a batch's promise that one bad record does not sink the
 * others then holds for a record that does not decode (an unknown key, a
 * wrongly typed field) as for one the core refuses, as it does on MCP.
 * Only JSON: binary protobuf skips unknown fields by design, and a wrongly
 * typed one cannot be told apart from a broken frame. The element types
 * have no uint64 field, whose out-of-range refusal only a whole body gets.
 */
export const RECORDS_APART: Readonly<Record<string, { field: string; operation: string }>> = {
  "engram.v1.StoreMemoriesRequest": { field: "memories", operation: "StoreMemory" },
};

/** The entries the diagnosis refused, by index in the request's list: from the gate to the service method. */
const kRefusedRecords = createContextKey<ReadonlyMap<number, ArgError> | undefined>(undefined, { description: "engram records refused apart" });

export function noteRefusedRecords(values: ContextValues, refused: ReadonlyMap<number, ArgError>): void {
  values.set(kRefusedRecords, refused);
}

export function refusedRecords(values: ContextValues): ReadonlyMap<number, ArgError> | undefined {
  return values.get(kRefusedRecords);
}
