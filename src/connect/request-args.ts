/**
 * A request message as the core's arguments, derived from the operation's
 * kinds row and the request's descriptor: each argument is read from the
 * proto field of the same name (base_dir is baseDir), converted by the
 * field's type. An argument the request has no field for is not sent on this
 * lane; the list of those is checked when the service is built, so a kinds
 * row and a contract that drift apart fail at start and in every test.
 */
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import type { FieldMask, Timestamp } from "@bufbuild/protobuf/wkt";
import type { Citation } from "../gen/engram/v1/engram_pb.js";
import { citationsArg, count, opt, rfc3339Of } from "./convert.js";

type Read = (req: Record<string, unknown>) => unknown;

/** The 64-bit integer types, which protobuf-es carries as bigint. */
export const INT64: ReadonlySet<ScalarType> = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);

/** How one proto field becomes its core argument. */
function readerOf(schema: DescMessage, f: DescField): Read {
  const name = f.localName;
  switch (f.fieldKind) {
    case "scalar":
      // Proto3 strings have no presence: "" is "not sent", which the core reads as absent.
      if (f.scalar === ScalarType.STRING) return (r) => opt(r[name] as string);
      if (INT64.has(f.scalar)) return (r) => count(r[name] as bigint);
      return (r) => r[name];
    case "list":
      if (f.listKind === "message" && f.message.typeName === "engram.v1.Citation") return (r) => citationsArg(r[name] as Citation[]);
      if (f.listKind === "scalar") return (r) => r[name];
      break;
    case "message":
      if (f.message.typeName === "google.protobuf.Timestamp") return (r) => rfc3339Of(schema, f.name, r[name] as Timestamp | undefined);
      if (f.message.typeName === "google.protobuf.FieldMask") return (r) => (r[name] as FieldMask | undefined)?.paths ?? [];
      break;
  }
  throw new Error(`${schema.typeName}.${f.name}: no core argument reads this field type`);
}

/**
 * The reader of an operation's arguments from its request: one entry per
 * kinds field, in the kinds order; `absent` names the arguments this lane
 * sends under another field or not at all.
 */
export function argsReader(schema: DescMessage, kinds: readonly string[], absent: readonly string[] = []): (req: object) => Record<string, unknown> {
  const fields: [string, Read][] = [];
  for (const arg of kinds) {
    const f = schema.fields.find((x) => x.name === arg);
    if (f === undefined) {
      if (!absent.includes(arg)) throw new Error(`${schema.typeName} has no field for the core argument ${arg}`);
      continue;
    }
    fields.push([arg, readerOf(schema, f)]);
  }
  return (req) => {
    const out: Record<string, unknown> = {};
    for (const [arg, read] of fields) out[arg] = read(req as Record<string, unknown>);
    return out;
  };
}
