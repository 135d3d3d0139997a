/**
 * A core result as its response message, derived from the response's
 * descriptor: each proto field is filled from the result's key of the same
 * name (short_id fills shortId), 64-bit counts become bigints, an enum field
 * takes the value whose name is the core's word upper-cased, and a Memory is
 * built by toPbMemory. A cross-spine read's coverage travels flat, as the
 * three coverage fields every read response has. A field the result lacks
 * keeps its proto default.
 */
import { create, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import type { MemoryView } from "../core/index.js";
import { coverageFields, toPbMemory } from "./convert.js";
import { INT64 } from "./request-args.js";


type Convert = (v: unknown) => unknown;

function enumValue(f: DescField & { enum: NonNullable<DescField["enum"]> }): Convert {
  const byWord = new Map(f.enum.values.map((v) => [v.localName.toLowerCase(), v.number]));
  return (w) => {
    const n = byWord.get(w as string);
    if (n === undefined) throw new Error(`${f.enum.typeName} has no value for a core word`);
    return n;
  };
}

function messageValue(desc: DescMessage): Convert {
  if (desc.typeName === "engram.v1.Memory") return (v) => toPbMemory(v as Partial<MemoryView>);
  return (v) => responseMessage(desc, v as Record<string, unknown>);
}

function converterOf(f: DescField): Convert {
  switch (f.fieldKind) {
    case "scalar":
      return INT64.has(f.scalar) ? (v) => BigInt(v as number) : (v) => v;
    case "enum":
      return enumValue(f);
    case "message":
      return messageValue(f.message);
    case "list": {
      const one: Convert =
        f.listKind === "message" ? messageValue(f.message) : f.listKind === "enum" ? enumValue(f) : INT64.has(f.scalar) ? (v) => BigInt(v as number) : (v) => v;
      return (v) => (v as unknown[]).map(one);
    }
    case "map":
      break;
  }
  throw new Error(`${f.parent.typeName}.${f.name}: no core result fills this field type`);
}

const plans = new WeakMap<DescMessage, [string, string, Convert][]>();

/** Each field of a message once: its core key, its protobuf-es name, its converter. Oneof members are filled by their owner. */
function planOf(desc: DescMessage): [string, string, Convert][] {
  let plan = plans.get(desc);
  if (plan === undefined) {
    plan = desc.fields.filter((f) => f.oneof === undefined).map((f) => [f.name, f.localName, converterOf(f)]);
    plans.set(desc, plan);
  }
  return plan;
}

export function responseMessage<D extends DescMessage>(desc: D, result: Record<string, unknown> | undefined): Message {
  const init: Record<string, unknown> = {};
  if (result !== undefined) {
    for (const [key, local, convert] of planOf(desc)) {
      const v = result[key];
      if (v !== undefined) init[local] = convert(v);
    }
    if ("coverage" in result && desc.field.scopesUnknown !== undefined) Object.assign(init, coverageFields(result.coverage as never));
  }
  return create(desc, init as never);
}
