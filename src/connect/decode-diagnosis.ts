/**
 * Turns a body that does not decode into one envelope. The decoder's own
 * message is never used: it quotes the caller's value ("expected Array, got
 * \"s3cr3t\"") or says nothing useful ("premature EOF"). Instead the failing
 * top-level field is found by decoding fields one at a time, and the detail
 * is derived from that field's declared type.
 */
import {
  fromBinary,
  fromJson,
  ScalarType,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type MessageShape,
} from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { ArgError, fieldNotDecodable, requestNotDecodable, UINT64_MAX, uint64Exceeded } from "../argerror/index.js";
import { argumentOrder, kindError, kindMismatch, readRfc3339, type ArgKind } from "../core/index.js";
import { methodTaking, RECORDS_APART } from "./records-apart.js";
import { rejectUnknownJsonFields } from "./unknown-fields.js";

/**
 * A body the library refused but engram reads (a key sent twice, a count
 * past uint64, a batch with records refused apart), as the library is handed
 * it again, and the list entries refused apart (records-apart.ts), if any.
 */
export type Checked = { bytes: Uint8Array; refusedRecords?: ReadonlyMap<number, ArgError> };

/**
 * The diagnosis decodes field by field with unknown keys ignored: they are
 * refused before, in engram's words (unknown-fields.ts), and a field's own
 * value is what each trial judges.
 */
export const JSON_READ_OPTIONS = { ignoreUnknownFields: true } as const;

const INTEGER_SIGNED = new Set([ScalarType.INT32, ScalarType.INT64, ScalarType.SINT32, ScalarType.SINT64, ScalarType.SFIXED32, ScalarType.SFIXED64]);
const INTEGER_UNSIGNED = new Set([ScalarType.UINT32, ScalarType.UINT64, ScalarType.FIXED32, ScalarType.FIXED64]);

function scalarNoun(t: ScalarType, plural: boolean): string {
  const n = (one: string, many: string) => (plural ? many : one);
  if (t === ScalarType.STRING) return n("a string", "strings");
  if (t === ScalarType.BOOL) return n("a boolean", "booleans");
  if (t === ScalarType.BYTES) return n("base64 bytes", "base64 byte strings");
  if (INTEGER_UNSIGNED.has(t)) return n("a non-negative integer", "non-negative integers");
  if (INTEGER_SIGNED.has(t)) return n("an integer", "integers");
  return n("a number", "numbers");
}

function messageNoun(m: DescMessage, plural: boolean): string {
  if (m.typeName === "google.protobuf.Timestamp") return plural ? "RFC3339 timestamps" : "RFC3339";
  if (m.typeName === "google.protobuf.FieldMask") return plural ? "field masks" : "a field mask of comma-separated field paths";
  return plural ? `${m.typeName} objects` : `a ${m.typeName} object`;
}

/** The message lists that are a core argument kind, refused in that kind's words. */
const LIST_KINDS: Readonly<Record<string, ArgKind>> = {
  "engram.v1.Citation": "citations",
  "engram.v1.StoreMemoryRequest": "records",
};

/** The core argument kind a field's type is, when it is one: its refusal then reads as MCP's. */
function kindOf(f: DescField): ArgKind | undefined {
  if (f.fieldKind === "scalar") {
    if (f.scalar === ScalarType.STRING) return "string";
    if (f.scalar === ScalarType.BOOL) return "boolean";
    if (INTEGER_UNSIGNED.has(f.scalar)) return "count";
  }
  if (f.fieldKind === "list" && f.listKind === "scalar" && f.scalar === ScalarType.STRING) return "strings";
  if (f.fieldKind === "list" && f.listKind === "message") return LIST_KINDS[f.message.typeName];
  return undefined;
}

/**
 * The envelope for one field whose value does not decode. Only the schema
 * speaks here: the field's proto name and its declared type, in the core's
 * words where the type is one of its argument kinds.
 */
export function fieldShapeError(f: DescField): ArgError {
  const name = f.name;
  const kind = kindOf(f);
  if (kind !== undefined) return kindMismatch(name, kind);
  switch (f.fieldKind) {
    case "scalar":
      return fieldNotDecodable(name, "format", `${name} must be ${scalarNoun(f.scalar, false)}`);
    case "enum":
      return fieldNotDecodable(name, "enum", `${name} must be one of ${f.enum.values.map((v) => v.name).join("|")}`);
    case "message":
      return fieldNotDecodable(name, "format", `${name} must be ${messageNoun(f.message, false)}`);
    case "list": {
      const noun =
        f.listKind === "scalar"
          ? scalarNoun(f.scalar, true)
          : f.listKind === "enum"
            ? `${f.enum.typeName} values`
            : messageNoun(f.message, true);
      return fieldNotDecodable(name, "format", `${name} must be a list of ${noun}`);
    }
    case "map":
      return fieldNotDecodable(name, "format", `${name} must be an object`);
  }
}

function fieldOfKey(desc: DescMessage, key: string): DescField | undefined {
  return desc.fields.find((f) => f.jsonName === key || f.name === key);
}

/**
 * The count knobs, as the proto's header names them: the core caps each far
 * below what a uint64 holds, and refuses a number above its cap in its own
 * words and at its own place in the order of checks.
 */
const COUNT_KNOBS: ReadonlySet<string> = new Set(["k", "limit"]);

/**
 * A JSON value that stands for a whole number no uint64 holds: a decimal
 * string, or a number literal (one too long for a double parses as
 * Infinity, which only such a literal gives). The library refuses these as
 * it refuses a word, but they are well-formed numbers that are too large,
 * which the vocabulary calls out_of_range, as MCP's lane does for the same
 * JSON number.
 */
function pastUint64(v: JsonValue): boolean {
  if (typeof v === "number") return v === Number.POSITIVE_INFINITY || (Number.isInteger(v) && BigInt(v) > UINT64_MAX);
  return typeof v === "string" && /^[0-9]+$/.test(v) && BigInt(v) > UINT64_MAX;
}

/** The keys of a body's singular uint64 fields whose value no uint64 holds. */
function keysPastUint64(desc: DescMessage, json: JsonObject): { key: string; field: DescField }[] {
  const out: { key: string; field: DescField }[] = [];
  for (const [key, value] of Object.entries(json)) {
    const f = fieldOfKey(desc, key);
    if (f?.fieldKind !== "scalar" || (f.scalar !== ScalarType.UINT64 && f.scalar !== ScalarType.FIXED64)) continue;
    if (pastUint64(value)) out.push({ key, field: f });
  }
  return out;
}

/**
 * Checks a JSON body and returns the bytes the library is handed again, or
 * throws the envelope that describes why it cannot be decoded.
 * `operation` is the method's name, for the unknown-field envelope.
 *
 * A number too large for its uint64 field is out of range, not malformed:
 * every other field is checked first (types before ranges, as on MCP);
 * then a field with no cap but the wire's is refused here, and a count
 * knob is passed on as the largest uint64, so that the core, whose cap is
 * below it, refuses it exactly as it refuses the same number from MCP. The
 * value itself goes no further than this function.
 */
export function checkJson(desc: DescMessage, bytes: Uint8Array, operation: string): Checked {
  let json: JsonValue;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as JsonValue;
  } catch {
    throw requestNotDecodable(desc.typeName);
  }
  const apart = refuseRecordsApart(desc, json);
  if (apart !== undefined) json = apart.json;
  const refusedRecords = apart?.refused;
  // Before the types, as MCP checks argument names before the core checks values.
  rejectUnknownJsonFields(desc, json, operation);
  rejectLenientTimestamps(desc, json);
  rejectLenientIntegers(desc, json);
  rejectUnknownEnumValues(desc, json);
  try {
    fromJson(desc, json, JSON_READ_OPTIONS);
    // The library decodes what was checked, re-encoded: JSON.parse keeps the last of a key sent
    // twice, as the MCP lane's parser does, where the library's own parser would refuse the raw
    // bytes in words of its own and no envelope.
    return { bytes: new TextEncoder().encode(JSON.stringify(json)), refusedRecords };
  } catch {
    // Diagnosed below.
  }
  const past = json !== null && typeof json === "object" && !Array.isArray(json) ? keysPastUint64(desc, json) : [];
  if (past.length === 0) throw diagnoseJson(desc, json, operation);
  const obj = json as JsonObject;
  const rest = Object.fromEntries(Object.entries(obj).filter(([key]) => !past.some((p) => p.key === key)));
  try {
    fromJson(desc, rest, JSON_READ_OPTIONS);
  } catch {
    throw diagnoseJson(desc, rest, operation);
  }
  const uncapped = past.find((p) => !COUNT_KNOBS.has(p.field.name));
  if (uncapped) throw uint64Exceeded(uncapped.field.name);
  const capped: JsonObject = { ...obj };
  for (const p of past) capped[p.key] = UINT64_MAX.toString();
  return { bytes: new TextEncoder().encode(JSON.stringify(capped)), refusedRecords };
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Why one JSON object does not decode as `desc`, in the words a call of `operation` with it alone gets; undefined when it does. */
function jsonRefusal(desc: DescMessage, json: JsonObject, operation: string): ArgError | undefined {
  try {
    rejectUnknownJsonFields(desc, json, operation);
  } catch (err) {
    if (err instanceof ArgError) return err;
    throw err;
  }
  try {
    fromJson(desc, json, JSON_READ_OPTIONS);
    return undefined;
  } catch {
    return diagnoseJson(desc, json, operation);
  }
}

/**
 * The body with each entry of its records-apart list that does not decode
 * replaced by an empty one, and those entries' refusals by index; undefined
 * when the method has no such list or every entry decodes. An entry that is
 * not an object is left in place: the list itself is malformed, and the
 * whole call is refused for it.
 */
function refuseRecordsApart(desc: DescMessage, json: JsonValue): { json: JsonObject; refused: Map<number, ArgError> } | undefined {
  const field = RECORDS_APART[desc.typeName];
  if (field === undefined || !isObject(json)) return undefined;
  const f = desc.fields.find((x) => x.name === field);
  if (f?.fieldKind !== "list" || f.listKind !== "message") return undefined;
  const operation = methodTaking(f.message);
  if (operation === undefined) return undefined;
  const refused = new Map<number, ArgError>();
  const out: JsonObject = { ...json };
  for (const key of new Set([f.name, f.jsonName])) {
    const list = json[key];
    if (!Array.isArray(list)) continue;
    out[key] = list.map((el, i) => {
      const why = isObject(el) ? jsonRefusal(f.message, el, operation) : undefined;
      if (why === undefined) return el;
      refused.set(i, why);
      return {};
    });
  }
  return refused.size === 0 ? undefined : { json: out, refused };
}

function diagnoseJson(desc: DescMessage, json: JsonValue, operation: string): ArgError {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return requestNotDecodable(desc.typeName);
  // In the order the core checks the operation's arguments, as MCP meets them, not the order sent.
  const order = argumentOrder(operation.charAt(0).toLowerCase() + operation.slice(1));
  const rank = (f: DescField) => (order.includes(f.name) ? order.indexOf(f.name) : order.length);
  const sent = Object.entries(json)
    .map(([key, value]) => ({ value, f: fieldOfKey(desc, key) }))
    .filter((e): e is { value: JsonValue; f: DescField } => e.f !== undefined)
    .sort((x, y) => rank(x.f) - rank(y.f));
  for (const { f, value } of sent) {
    try {
      fromJson(desc, { [f.jsonName]: value } as JsonValue, JSON_READ_OPTIONS);
    } catch {
      // A citation list gets the core's own words for its first bad entry, as MCP does.
      const kind = kindOf(f);
      return (kind === undefined ? undefined : kindError(f.name, kind, value)) ?? fieldShapeError(f);
    }
  }
  // Every field decodes alone but not together (a field given under both of
  // its names, two members of one oneof): the body as a whole is at fault.
  return requestNotDecodable(desc.typeName);
}

/** Decodes a binary body or throws the envelope that describes why it cannot be. */
export function decodeBinary<D extends DescMessage>(desc: D, bytes: Uint8Array): MessageShape<D> {
  try {
    return fromBinary(desc, bytes);
  } catch {
    throw diagnoseBinary(desc, bytes);
  }
}

function diagnoseBinary(desc: DescMessage, bytes: Uint8Array): ArgError {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const start = reader.pos;
    let fieldNo: number;
    let wireType: number;
    try {
      [fieldNo, wireType] = reader.tag();
    } catch {
      return requestNotDecodable(desc.typeName);
    }
    const f = desc.fields.find((x) => x.number === fieldNo);
    try {
      reader.skip(wireType, fieldNo);
    } catch {
      return f ? fieldShapeError(f) : requestNotDecodable(desc.typeName);
    }
    if (f === undefined) continue;
    try {
      fromBinary(desc, bytes.subarray(start, reader.pos));
    } catch {
      return fieldShapeError(f);
    }
  }
  return requestNotDecodable(desc.typeName);
}

/**
 * One entry point for both encodings, run once the library's decode has
 * refused a body: the bytes to hand it again (a binary body as it came), or
 * the envelope that says why it cannot be decoded.
 */
export function checkRequest(desc: DescMessage, bytes: Uint8Array, binary: boolean, operation: string): Checked {
  if (!binary) return checkJson(desc, bytes, operation);
  decodeBinary(desc, bytes);
  return { bytes };
}

/** Whether a method's input has a top-level field the library reads more leniently than the core (below). */
export function readsLeniently(desc: DescMessage): boolean {
  let lenient = lenientCache.get(desc);
  if (lenient === undefined) {
    lenient = desc.fields.some(
      (f) => (f.fieldKind === "message" && f.message.typeName === "google.protobuf.Timestamp") || (f.fieldKind === "scalar" && (INTEGER_SIGNED.has(f.scalar) || INTEGER_UNSIGNED.has(f.scalar))),
    );
    lenientCache.set(desc, lenient);
  }
  return lenient;
}
const lenientCache = new WeakMap<DescMessage, boolean>();

/**
 * Whether a parsed JSON body spells every such field as the core reads it.
 * The library would accept the others and lose the spelling, so a body that
 * fails this goes to the diagnosis without the library's decode.
 */
export function spelledStrictly(desc: DescMessage, json: JsonValue): boolean {
  try {
    rejectLenientTimestamps(desc, json);
    rejectLenientIntegers(desc, json);
    return true;
  } catch {
    return false;
  }
}

/**
 * The library reads a Timestamp string more leniently than the core reads
 * the same text from MCP or the CLI (February 30 becomes March 2): a string
 * the core would refuse gets the field's envelope here, in the core's words.
 */
function rejectLenientTimestamps(desc: DescMessage, json: JsonValue): void {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return;
  for (const f of desc.fields) {
    if (f.fieldKind !== "message" || f.message.typeName !== "google.protobuf.Timestamp") continue;
    const value = json[f.jsonName] ?? json[f.name];
    if (typeof value === "string" && readRfc3339(value) === undefined) throw fieldShapeError(f);
  }
}

/**
 * Proto JSON writes a 64-bit integer as a decimal string, and the library
 * reads any string BigInt reads ("0x10", " 2 "), which neither MCP nor the
 * CLI takes: a string integer must be decimal digits (a sign only where the
 * field is signed), or it gets the field's envelope.
 */
function rejectLenientIntegers(desc: DescMessage, json: JsonValue): void {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return;
  for (const f of desc.fields) {
    if (f.fieldKind !== "scalar") continue;
    const digits = INTEGER_UNSIGNED.has(f.scalar) ? /^[0-9]+$/ : INTEGER_SIGNED.has(f.scalar) ? /^-?[0-9]+$/ : undefined;
    const value = json[f.jsonName] ?? json[f.name];
    if (digits !== undefined && typeof value === "string" && !digits.test(value)) throw fieldShapeError(f);
  }
}

/**
 * The library reads an enum name it does not know as if the field were not
 * sent, and keeps a number it does not know: either way the core would be
 * told "required", or handed a value no lane can send. Both get the field's
 * enum envelope here instead.
 */
function rejectUnknownEnumValues(desc: DescMessage, json: JsonValue): void {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return;
  for (const f of desc.fields) {
    if (f.fieldKind !== "enum") continue;
    const value = json[f.jsonName] ?? json[f.name];
    if (value === undefined || value === null) continue;
    if (!f.enum.values.some((v) => v.name === value || v.number === value)) throw fieldShapeError(f);
  }
}

/** A binary enum field holding a number its enum does not have gets the JSON lane's envelope for it. */
export function checkEnumNumber(desc: DescMessage, field: string, value: number): void {
  const f = desc.fields.find((x) => x.name === field);
  if (f?.fieldKind === "enum" && !f.enum.values.some((v) => v.number === value)) throw fieldShapeError(f);
}
