/**
 * MCP input shapes, derived from the operation table: one zod field per
 * argument a row's tool offers, typed by the argument's kind and described
 * by the row. They describe JSON types only: every field is optional and
 * carries no bound, because the core validates and names the right field in
 * its envelope.
 */
import { z } from "zod";
import { CITATION_DOCS, STORE_DOCS, STORE_KINDS, type AnyRow, type ArgKind, type FieldDoc } from "../core/index.js";

const docOf = (d: FieldDoc) => (typeof d === "string" ? d : d.doc);

function described<T extends z.ZodType>(t: T, d: FieldDoc) {
  return typeof d === "string" ? t.describe(d) : t.meta({ minItems: d.minItems }).describe(d.doc);
}

const text = (d: string) => z.string().describe(d).optional();

/** A citation's fields, as every tool taking citations shows them. */
const citationShape = Object.fromEntries(Object.entries(CITATION_DOCS).map(([k, d]) => [k, text(d)]));

/** A batch record: a record's write arguments, described as the single write describes them. */
const recordShape: z.ZodRawShape = Object.fromEntries(
  Object.entries(STORE_DOCS).map(([k, d]) => [k, fieldOf(STORE_KINDS[k as keyof typeof STORE_KINDS], d)]),
);

function fieldOf(kind: ArgKind, d: FieldDoc): z.ZodType {
  switch (kind) {
    case "string":
      return described(z.string(), d).optional();
    case "boolean":
      return described(z.boolean(), d).optional();
    case "strings":
      return described(z.array(z.string()), d).optional();
    // A non-negative integer, like the proto's uint64 counts; the maximum is the core's to check.
    case "count":
      return described(z.number().int().min(0), d).optional();
    case "citations":
      return described(z.array(z.object(citationShape)), docOf(d)).optional();
    case "records":
      return described(z.array(z.object(recordShape)), docOf(d)).optional();
  }
}

/** The input shape of a row's tool, in the order its fields are described; renamed fields under the tool's name. */
export function toolInput(row: AnyRow): z.ZodRawShape {
  const tool = row.tool;
  if (tool === undefined || row.kinds === undefined) return {};
  const kinds = row.kinds as Readonly<Record<string, ArgKind>>;
  const rename = (tool.rename ?? {}) as Readonly<Record<string, string>>;
  return Object.fromEntries(
    Object.entries(tool.fields as Record<string, FieldDoc>).map(([field, d]) => [rename[field] ?? field, fieldOf(kinds[field]!, d)]),
  );
}
