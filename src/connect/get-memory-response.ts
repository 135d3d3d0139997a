import { toBinary, type UnknownField } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { MemoryView } from "../core/index.js";
import { GetMemoryResponseSchema, MemorySchema, type GetMemoryResponse } from "../gen/engram/v1/engram_pb.js";
import { toPbMemory } from "./convert.js";

/** The `memory` field of a GetMemoryResponse, encoded, per frozen view; it goes when the view does. */
const encoded = new WeakMap<MemoryView, UnknownField[]>();

const MEMORY_FIELD = GetMemoryResponseSchema.field.memory!.number;

/**
 * A point read's answer. In the binary format, a view the core froze (one per
 * stored version of a record, see pointView) is encoded once and its bytes
 * are reused by every later read of that version: encoding a full Memory
 * cost more than the read itself. The bytes travel as the response's
 * unknown fields, which protobuf-es writes out as they are, so the wire
 * carries exactly what encoding the message would have written (a test
 * compares the two). JSON, and any view not frozen, get the message itself:
 * JSON leaves unknown fields out.
 */
export function getMemoryResponse(view: MemoryView, binary: boolean): GetMemoryResponse {
  if (binary && Object.isFrozen(view)) {
    let fields = encoded.get(view);
    if (fields === undefined) {
      const data = new BinaryWriter().bytes(toBinary(MemorySchema, toPbMemory(view))).finish();
      fields = [{ no: MEMORY_FIELD, wireType: WireType.LengthDelimited, data }];
      encoded.set(view, fields);
    }
    return { $typeName: "engram.v1.GetMemoryResponse", $unknown: fields };
  }
  // A literal, like toPbMemory: create() would walk the descriptor again.
  return { $typeName: "engram.v1.GetMemoryResponse", memory: toPbMemory(view) };
}
