/**
 * Unknown JSON fields are refused, never dropped, for the reason MCP refuses
 * unknown arguments: a misspelt `tag` would drop the filter and answer 200
 * with records the caller did not ask for, and an unknown key inside a
 * citation would be stored as if it were nothing. Only JSON is checked.
 * Binary protobuf must keep skipping field numbers it does not know: that is
 * how the schema evolves, a client built from a newer proto talking to an
 * older server.
 */
import type { DescField, DescMessage, JsonValue } from "@bufbuild/protobuf";
import { argError, REQUEST_FIELD } from "../argerror/index.js";
import { plainName, rejectUnknownArguments } from "../core/index.js";

type JsonObject = { [k: string]: JsonValue };

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** protobuf-es reads a field under its proto name and its JSON name alike. */
const namesCache = new WeakMap<DescMessage, string[]>();
function acceptedNames(desc: DescMessage): string[] {
  let names = namesCache.get(desc);
  if (names === undefined) {
    names = desc.fields.flatMap((f) => (f.jsonName === f.name ? [f.name] : [f.name, f.jsonName]));
    namesCache.set(desc, names);
  }
  return names;
}

function fieldOfKey(desc: DescMessage, key: string): DescField | undefined {
  return desc.fields.find((f) => f.name === key || f.jsonName === key);
}

/**
 * The well-known types have a JSON form of their own (a Timestamp is a
 * string), so their keys are the decoder's business, not this walk's.
 */
function walksInto(m: DescMessage): boolean {
  return !m.typeName.startsWith("google.protobuf.");
}

/** "Citation" reads "citation", "ScopeCount" "scope count": the words MCP's citation check uses. */
function nounOf(m: DescMessage): string {
  return m.name.replace(/(?<=[a-z0-9])([A-Z])/g, " $1").toLowerCase();
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? "an" : "a";
}

/**
 * The first key of a nested message that the message does not have. `path`
 * is the field as the vocabulary names it (an index placeholder per list,
 * `citations[i]`); the real index, when there is one, leads the detail.
 */
function checkNested(desc: DescMessage, json: JsonObject, path: string, index: number | undefined): void {
  const noun = nounOf(desc);
  const lead = index === undefined ? "" : `${noun} ${index}: `;
  const bounds = index === undefined ? undefined : { index };
  const accepted = acceptedNames(desc);
  for (const key of Object.keys(json)) {
    if (accepted.includes(key)) continue;
    const what = plainName(key) ? key : "a field it has";
    throw argError(path, "not_applicable", `${lead}${what} is not a field of ${article(noun)} ${noun}`, bounds);
  }
  walkFields(desc, json, path);
}

function walkFields(desc: DescMessage, json: JsonObject, prefix: string): void {
  for (const [key, value] of Object.entries(json)) {
    const f = fieldOfKey(desc, key);
    if (f === undefined) continue;
    const path = prefix === "" ? f.name : `${prefix}.${f.name}`;
    if (f.fieldKind === "message" && walksInto(f.message) && isObject(value)) {
      checkNested(f.message, value, path, undefined);
    } else if (f.fieldKind === "list" && f.listKind === "message" && walksInto(f.message) && Array.isArray(value)) {
      value.forEach((el, i) => {
        if (isObject(el)) checkNested(f.message, el, `${path}[i]`, i);
      });
    } else if (f.fieldKind === "map" && f.mapKind === "message" && walksInto(f.message) && isObject(value)) {
      for (const el of Object.values(value)) if (isObject(el)) checkNested(f.message, el, `${path}[k]`, undefined);
    }
  }
}

/**
 * Refuses the first field of a JSON body, in the order sent, that the input
 * message does not have: top-level keys first, in MCP's own words
 * (`<key> is not an argument of <method>`, `field=request` for a name
 * that is not a plain identifier), then keys inside nested messages.
 * Anything that is not an object is left to the decoder to refuse.
 */
export function rejectUnknownJsonFields(desc: DescMessage, json: JsonValue, operation: string): void {
  if (!isObject(json)) return;
  rejectUnknownArguments(operation, acceptedNames(desc), json, REQUEST_FIELD);
  walkFields(desc, json, "");
}
