import { ArgError, argError } from "../argerror/index.js";
import type { Citation } from "../model/record.js";

/**
 * The JSON type each argument must have. A lane whose wire format already
 * fixes types (proto) always passes; a lane that forwards caller JSON as is
 * (MCP) gets its type errors here, named by field, instead of from a
 * schema library in front of the core.
 */
export type ArgKind = "string" | "boolean" | "count" | "strings" | "citations" | "records";

/** What a value of each kind must be, in the words every lane refuses one that is not with. */
export const KIND_SHAPE: Readonly<Record<ArgKind, string>> = {
  string: "a string",
  boolean: "true or false",
  count: "a non-negative integer",
  strings: "a list of strings",
  citations: "a list of citation objects",
  records: "a list of objects",
};

/** The envelope for a value that is not of its field's kind. */
export function kindMismatch(field: string, kind: ArgKind): ArgError {
  return argError(field, "format", `${field} must be ${KIND_SHAPE[kind]}`);
}

/** One kind per field of T, in the order the fields are checked. */
export type KindsOf<T> = { readonly [K in keyof T]-?: ArgKind };

/** Every field of a citation, each once: a field added to `Citation` and not here fails to compile. */
const CITATION_KEYS = { kind: true, ref: true, locator: true, pin: true, excerpt: true } as const satisfies Record<keyof Citation, true>;
export const CITATION_FIELDS = Object.keys(CITATION_KEYS) as (keyof Citation)[];

/** A name the caller chose may be repeated only when it is short and plainly an identifier. */
export function plainName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkCitationList(field: string, value: unknown): void {
  if (!Array.isArray(value)) throw kindMismatch(field, "citations");
  value.forEach((c: unknown, i) => {
    if (!isPlainObject(c)) throw argError(field, "format", `citation ${i} must be an object`, { index: i });
    for (const key of Object.keys(c)) {
      if (!(CITATION_FIELDS as readonly string[]).includes(key)) {
        const what = plainName(key) ? key : "a field it has";
        throw argError(`${field}[i]`, "not_applicable", `citation ${i}: ${what} is not a field of a citation`, { index: i });
      }
    }
    for (const key of CITATION_FIELDS) {
      const v = c[key];
      if (v !== undefined && typeof v !== "string") {
        throw argError(`${field}[i].${key}`, "format", `citation ${i}: ${key} must be a string`, { index: i });
      }
    }
  });
}

function checkKind(field: string, kind: ArgKind, value: unknown): void {
  switch (kind) {
    case "string":
      if (typeof value !== "string") throw kindMismatch(field, kind);
      return;
    case "boolean":
      if (typeof value !== "boolean") throw kindMismatch(field, kind);
      return;
    case "count":
      // A JSON number literal too long for a double parses as Infinity: a
      // whole number past every cap, left for the cap to refuse (checkCount).
      if (typeof value !== "number" || !(Number.isInteger(value) || value === Number.POSITIVE_INFINITY) || value < 0) {
        throw kindMismatch(field, kind);
      }
      return;
    case "strings":
      if (!Array.isArray(value) || !value.every((s) => typeof s === "string")) {
        throw kindMismatch(field, kind);
      }
      return;
    case "citations":
      checkCitationList(field, value);
      return;
    case "records":
      // Each record's own fields are checked one by one, as its own call would be.
      if (!Array.isArray(value) || !value.every(isPlainObject)) throw kindMismatch(field, kind);
      return;
  }
}

/** The envelope a value of the wrong kind gets (a citation's own field named), or undefined when it is of its kind. */
export function kindError(field: string, kind: ArgKind, value: unknown): ArgError | undefined {
  try {
    checkKind(field, kind, value);
    return undefined;
  } catch (err) {
    if (err instanceof ArgError) return err;
    throw err;
  }
}

/**
 * Checks every present argument against its kind, in table order, before any
 * other check of the operation. `names` renames a field to what the lane
 * calls it (MCP's `cursor` is the core's `page_token`).
 */
export function checkArgKinds<T extends object>(kinds: KindsOf<T>, args: T, names: Partial<Record<keyof T, string>> = {}): T {
  if (!isPlainObject(args)) throw argError("arguments", "format", "arguments must be an object");
  for (const field of Object.keys(kinds) as (keyof T & string)[]) {
    const value = (args as Record<string, unknown>)[field];
    if (value !== undefined) checkKind(names[field] ?? field, kinds[field], value);
  }
  return args;
}
