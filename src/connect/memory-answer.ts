import { toBinary, type DescMessage, type Message, type UnknownField } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { MemoryView } from "../core/index.js";
import { MemorySchema } from "../gen/engram/v1/engram_pb.js";
import { toPbMemory } from "./convert.js";

/**
 * How a response whose one field is a Memory (a point read's) answers from
 * the result view itself, or undefined for any other response.
 *
 * In the binary format, a view the core froze (one per stored version of a
 * record, see pointView) is encoded once and its bytes are reused by every
 * later read of that version: encoding a full Memory cost more than the read
 * itself. The bytes travel as the response's unknown fields, which
 * protobuf-es writes out as they are, so the wire carries exactly what
 * encoding the message would have written (a test compares the two). JSON,
 * and any view not frozen, get the message itself: JSON leaves unknown
 * fields out.
 */
export function memoryAnswerOf<T extends Message>(desc: DescMessage): ((view: MemoryView, binary: boolean) => T) | undefined {
  const [only, ...rest] = desc.fields;
  if (only === undefined || rest.length > 0 || only.fieldKind !== "message" || only.message.typeName !== MemorySchema.typeName) return undefined;
  const { number: no, localName } = only;
  // The Memory field, encoded, per frozen view; it goes when the view does.
  const encoded = new WeakMap<MemoryView, UnknownField[]>();
  return (view, binary) => {
    if (binary && Object.isFrozen(view)) {
      let fields = encoded.get(view);
      if (fields === undefined) {
        const data = new BinaryWriter().bytes(toBinary(MemorySchema, toPbMemory(view))).finish();
        fields = [{ no, wireType: WireType.LengthDelimited, data }];
        encoded.set(view, fields);
      }
      return { $typeName: desc.typeName, $unknown: fields } as unknown as T;
    }
    // A literal, like toPbMemory: create() would walk the descriptor again.
    return { $typeName: desc.typeName, [localName]: toPbMemory(view) } as unknown as T;
  };
}
