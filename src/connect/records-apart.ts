import type { DescMessage } from "@bufbuild/protobuf";
import { createContextKey, type ContextValues } from "@connectrpc/connect";
import type { ArgError } from "../argerror/index.js";
import { EngramService } from "../gen/engram/v1/engram_pb.js";

/**
 * Request lists whose entries the JSON diagnosis refuses one by one, each in the
 * words of the method whose request such an entry is alone, instead of refusing
 * the whole call: a batch's promise that one bad record does not sink the
 * others then holds for a record that does not decode (an unknown key, a
 * wrongly typed field) as for one the core refuses, as it does on MCP.
 * Only JSON: binary protobuf skips unknown fields by design, and a wrongly
 * typed one cannot be told apart from a broken frame. The element types
 * have no uint64 field, whose out-of-range refusal only a whole body gets.
 */
export const RECORDS_APART: Readonly<Record<string, string>> = {
  "engram.v1.StoreMemoriesRequest": "memories",
};

/** The method whose request is one entry of such a list, found in the service, not named twice. */
export function methodTaking(entry: DescMessage): string | undefined {
  return EngramService.methods.find((m) => m.input.typeName === entry.typeName)?.name;
}

/** The entries the diagnosis refused, by index in the request's list: from the gate to the service method. */
const kRefusedRecords = createContextKey<ReadonlyMap<number, ArgError> | undefined>(undefined, { description: "engram records refused apart" });

export function noteRefusedRecords(values: ContextValues, refused: ReadonlyMap<number, ArgError>): void {
  values.set(kRefusedRecords, refused);
}

export function refusedRecords(values: ContextValues): ReadonlyMap<number, ArgError> | undefined {
  return values.get(kRefusedRecords);
}
