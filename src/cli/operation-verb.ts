import { create, ScalarType, type DescField, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import type { Command } from "commander";
import { collectList, parseUint, usageError, writeDocument } from "../cli-kit/index.js";
import { RULES, ruleError } from "../argerror/index.js";
import { OPERATION_ROWS, type OperationOfVerb, type VerbName } from "../core/index.js";
import { EngramService } from "../gen/engram/v1/engram_pb.js";
import { addClientFlags, resolveClient, type ClientFlagValues, type ClientSettings } from "./client-flags.js";
import { FLAG_VALUE_OF_MESSAGE } from "./flag-values.js";
import { emit } from "./output.js";
import { callEngram } from "./rpc.js";

/**
 * A client verb that calls one operation, built from the operation's row
 * and the RPC's request message: the flags are the request's fields (their
 * syntax follows the field's type), the request is filled from them by
 * name, the rules the row declares for the verb are checked before dialing,
 * and the RPC is the row's. A verb only says what the field names cannot:
 * its help, and how its answer reads as text.
 */

type Method<V extends VerbName> = (typeof EngramService.method)[OperationOfVerb<V>];
type Input<V extends VerbName> = Method<V>["input"];
export type RequestOf<V extends VerbName> = MessageShape<Input<V>>;
export type ResponseOf<V extends VerbName> = MessageShape<Method<V>["output"]>;
type RequestField<V extends VerbName> = Exclude<keyof RequestOf<V>, "$typeName" | "$unknown"> & string;

/** What commander hands an action: the flags' values, by camelCase name. */
export type FlagValues = Readonly<Record<string, unknown>>;

/**
 * A field flag's help. `placeholder` names its value where the field's name
 * does not (`--query <text>`); `flag` renames a flag (`--citation`, one per
 * citation, fills `citations`).
 */
export type FlagDoc = string | { readonly doc: string; readonly placeholder?: string; readonly flag?: string };

export type VerbSpec<V extends VerbName> = {
  readonly summary: string;
  /** The help's description, given the name of the RPC the verb calls. */
  readonly description: (rpc: string) => string;
  /** A positional argument, named as the request field it fills (`<id>`, `<ids...>`). */
  readonly argument?: readonly [name: string, doc: string];
  /** The request fields offered as flags, in the order help lists them. */
  readonly flags: { readonly [F in RequestField<V>]?: FlagDoc };
  /** Flags that fill no field as typed; `request` reads them. Listed after the field flags. */
  readonly local?: readonly (readonly [flags: string, doc: string])[];
  /**
   * Fields the flags do not fill as typed. It runs before the connection
   * settings are read (a refusal here is about the request), and may ask
   * for them when it needs the server first.
   */
  readonly request?: (
    o: FlagValues,
    ctx: { readonly argument: unknown; readonly settings: () => ClientSettings },
  ) => Partial<MessageInitShape<Input<V>>> | Promise<Partial<MessageInitShape<Input<V>>>>;
  /** The answer as text; JSON output is the response's proto JSON. */
  readonly text: (res: ResponseOf<V>, o: FlagValues, req: RequestOf<V>) => string;
  /** An answer that is not the response (a preview), as its document and its text; undefined for the usual one. */
  readonly answer?: (res: ResponseOf<V>, req: RequestOf<V>) => { readonly document: unknown; readonly text: string } | undefined;
  /** Advice after the answer, on stderr. */
  readonly after?: (settings: ClientSettings, req: RequestOf<V>, res: ResponseOf<V>) => Promise<void>;
  /** Runs the verb another way when it returns a promise (`store --from-file`). */
  readonly instead?: (o: FlagValues, cmd: Command) => Promise<void> | undefined;
};

/** Every verb a row names, with what only the CLI says of it. */
export type VerbTable = { readonly [V in VerbName]: VerbSpec<V> };

const camel = (snake: string) => snake.replace(/[_-]([a-z])/g, (_, c: string) => c.toUpperCase());
const kebab = (snake: string) => snake.replace(/_/g, "-");

const UINTS: readonly ScalarType[] = [ScalarType.UINT64, ScalarType.UINT32, ScalarType.FIXED64, ScalarType.FIXED32];

const appendValue = (v: string, prev: string[] | undefined) => [...(prev ?? []), v];

type FlagDef = { readonly flags: string; readonly doc: string; readonly parse?: (v: string, prev: never) => unknown; readonly key: string };

/** A field's flag: a switch for a bool, `<uint>` for a count, `<list>` for repeated text, `<json>` per repeated message. */
function flagOf(field: DescField, docOf: FlagDoc): FlagDef {
  const d = typeof docOf === "string" ? { doc: docOf } : docOf;
  const name = kebab(d.flag ?? field.name);
  const key = camel(name);
  const value = (fallback: string) => `--${name} <${d.placeholder ?? fallback}>`;
  if (field.fieldKind === "scalar") {
    if (field.scalar === ScalarType.BOOL) return { flags: `--${name}`, doc: d.doc, key };
    if (UINTS.includes(field.scalar)) return { flags: value("uint"), doc: d.doc, parse: parseUint, key };
    if (field.scalar === ScalarType.STRING) return { flags: value(name), doc: d.doc, key };
  }
  if (field.fieldKind === "list" && field.listKind === "scalar" && field.scalar === ScalarType.STRING) {
    return { flags: value("list"), doc: d.doc, parse: collectList, key };
  }
  const message = field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message") ? FLAG_VALUE_OF_MESSAGE[field.message.typeName] : undefined;
  if (message !== undefined) return { flags: value(message.placeholder), doc: d.doc, parse: field.fieldKind === "list" ? appendValue : undefined, key };
  throw new Error(`no flag form for ${field.parent.typeName}.${field.name}`);
}

function fieldOf(desc: DescMessage, localName: string): DescField {
  const field = desc.fields.find((f) => f.localName === localName);
  if (field === undefined) throw new Error(`${desc.typeName} has no field ${localName}`);
  return field;
}

/** The request's fields as the flags give them; a message-typed field's text becomes its message here. */
function fieldsOfFlags(fields: readonly [DescField, FlagDef][], o: FlagValues): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  for (const [field, def] of fields) {
    const value = o[def.key];
    if (value === undefined) continue;
    const typeName = field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message") ? field.message.typeName : undefined;
    init[field.localName] = typeName === undefined ? value : FLAG_VALUE_OF_MESSAGE[typeName]!.value(field.name, value);
  }
  return init;
}

/** A declared rule over flags that cannot be combined: given means typed (a switch counts only when on). */
function checkRule(rule: keyof typeof RULES, o: FlagValues): void {
  const given = RULES[rule].fields.filter((f) => o[camel(f)] !== undefined && o[camel(f)] !== false);
  if (given.length > 1) throw usageError(ruleError(rule).message);
}

function registerVerb<V extends VerbName>(program: Command, verb: V, spec: VerbSpec<V>): void {
  const row = OPERATION_ROWS.find((r) => r.verb === verb)!;
  const method = EngramService.method[row.name as OperationOfVerb<V>];
  const desc = method.input as DescMessage;
  const cmd = program.command(verb).summary(spec.summary).description(spec.description(method.name));
  const argField = spec.argument === undefined ? undefined : fieldOf(desc, spec.argument[0].replace(/[<>[\].]/g, ""));
  if (spec.argument !== undefined) cmd.argument(spec.argument[0], spec.argument[1]);
  const fields = Object.entries(spec.flags as Record<string, FlagDoc>).map(([name, doc]): [DescField, FlagDef] => {
    const field = fieldOf(desc, name);
    return [field, flagOf(field, doc)];
  });
  for (const [, def] of fields) {
    if (def.parse) cmd.option(def.flags, def.doc, def.parse as (v: string, prev: unknown) => unknown);
    else cmd.option(def.flags, def.doc);
  }
  for (const [flags, doc] of spec.local ?? []) cmd.option(flags, doc);
  addClientFlags(cmd).action(async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const o = args.at(-2) as FlagValues & ClientFlagValues;
    for (const rule of row.verbRules) checkRule(rule, o);
    const elsewhere = spec.instead?.(o, command);
    if (elsewhere !== undefined) return elsewhere;
    let resolved: ClientSettings | undefined;
    const settings = () => (resolved ??= resolveClient(o, command));
    const argument = argField === undefined ? undefined : args[0];
    const init = {
      ...fieldsOfFlags(fields, o),
      ...(argField === undefined ? {} : { [argField.localName]: argument }),
      ...(await spec.request?.(o, { argument, settings })),
    };
    const req = create(method.input, init as MessageInitShape<Input<V>>) as RequestOf<V>;
    const s = settings();
    const res = (await callEngram(s, (c, opts) =>
      (c as unknown as Record<string, (r: unknown, opts: unknown) => Promise<unknown>>)[row.name]!(req, opts),
    )) as ResponseOf<V>;
    const other = spec.answer?.(res, req);
    if (other !== undefined) writeDocument(s.output, other.document, () => other.text);
    else emit(s.output, method.output as DescMessage, res as MessageShape<DescMessage>, () => spec.text(res, o, req));
    await spec.after?.(s, req, res);
  });
}

/** Registers every verb of the table, in its order. */
export function registerOperationVerbs(program: Command, table: VerbTable): void {
  for (const [verb, spec] of Object.entries(table) as [VerbName, VerbSpec<VerbName>][]) registerVerb(program, verb, spec);
}
