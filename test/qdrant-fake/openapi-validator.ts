import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { findSchemaDir } from "./schema-dir.js";

/** The server lines whose published REST schema every request must satisfy. */
export const SCHEMA_VERSIONS = ["1.17", "1.19"] as const;
export type SchemaVersion = (typeof SCHEMA_VERSIONS)[number];

export interface SchemaViolation {
  readonly schema: SchemaVersion;
  readonly method: string;
  readonly route: string;
  readonly where: "route" | "query" | "body";
  readonly message: string;
}

interface Operation {
  readonly parameters?: ReadonlyArray<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  readonly requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
}

interface OpenApiDoc {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { schemas: Record<string, unknown> };
}

// ajv-formats ships as CommonJS with a default export; under NodeNext the namespace arrives as is.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * OpenAPI 3.0 is not JSON Schema: `nullable` is its own keyword and a bare `{nullable: true}`
 * (how Qdrant's schema spells "or null" inside `anyOf`) means the null value. Rewrite both into
 * JSON Schema, and point `#/components/...` refs into the schema registered under `id`.
 */
function toJsonSchema(node: unknown, id: string): unknown {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, id));
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string" && value.startsWith("#/")) out[key] = `${id}${value}`;
    else if (key === "properties" && value && typeof value === "object") {
      // Property names are data, not keywords: convert each property's schema, keep the names.
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSchema(v, id)]));
    } else out[key] = toJsonSchema(value, id);
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (out.type === undefined) return { ...out, type: "null" };
    out.type = Array.isArray(out.type) ? [...out.type, "null"] : [out.type, "null"];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

const isUnsigned = (bits: number) => (n: number) =>
  Number.isInteger(n) && n >= 0 && (bits >= 53 || n < 2 ** bits);

function buildAjv(): Ajv {
  // strict off: the schema carries OpenAPI-only keywords (`example`) that JSON Schema lacks.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("uint", { type: "number", validate: isUnsigned(64) });
  ajv.addFormat("uint8", { type: "number", validate: isUnsigned(8) });
  ajv.addFormat("uint32", { type: "number", validate: isUnsigned(32) });
  ajv.addFormat("uint64", { type: "number", validate: isUnsigned(64) });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat("float", { type: "number", validate: () => true });
  ajv.addFormat("double", { type: "number", validate: () => true });
  // Qdrant parses these with its own lenient parser; the fake does not narrow what it accepts.
  ajv.addFormat("partial-date-time", { type: "string", validate: () => true });
  ajv.addFormat("binary", { type: "string", validate: () => true });
  return ajv;
}

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`)
    .join("; ");
}

/** Query strings arrive as text; coerce each declared parameter the way actix's serde would. */
function coerceQuery(value: string, schema: unknown): unknown {
  const type = (schema as { type?: unknown } | undefined)?.type;
  if (type === "boolean") return value === "true" ? true : value === "false" ? false : value;
  if ((type === "integer" || type === "number") && value.trim() !== "" && !Number.isNaN(Number(value))) {
    return Number(value);
  }
  return value;
}

class VersionSchema {
  private readonly ajv = buildAjv();
  private readonly cache = new Map<string, { body?: ValidateFunction; query?: ValidateFunction; op: Operation } | null>();
  private readonly id: string;

  constructor(
    readonly version: SchemaVersion,
    private readonly doc: OpenApiDoc,
  ) {
    this.id = `qdrant-${version}`;
    this.ajv.addSchema({ $id: this.id, components: toJsonSchema(doc.components, this.id) });
  }

  private compiled(method: string, route: string) {
    const key = `${method} ${route}`;
    if (!this.cache.has(key)) {
      const op = this.doc.paths[route]?.[method.toLowerCase()];
      if (!op) this.cache.set(key, null);
      else {
        const bodySchema = op.requestBody?.content?.["application/json"]?.schema;
        const params = (op.parameters ?? []).filter((p) => p.in === "query");
        const querySchema = {
          type: "object",
          properties: Object.fromEntries(params.map((p) => [p.name, toJsonSchema(p.schema ?? {}, this.id)])),
          required: params.filter((p) => p.required).map((p) => p.name),
        };
        this.cache.set(key, {
          op,
          body: bodySchema === undefined ? undefined : this.ajv.compile(toJsonSchema(bodySchema, this.id) as object),
          query: this.ajv.compile(querySchema),
        });
      }
    }
    return this.cache.get(key) ?? null;
  }

  check(method: string, route: string, query: URLSearchParams, body: unknown): SchemaViolation[] {
    const at = { schema: this.version, method, route };
    const compiled = this.compiled(method, route);
    if (!compiled) return [{ ...at, where: "route", message: `no ${method} ${route} in Qdrant ${this.version}` }];
    const violations: SchemaViolation[] = [];
    const params = new Map((compiled.op.parameters ?? []).filter((p) => p.in === "query").map((p) => [p.name, p]));
    const queryObject: Record<string, unknown> = {};
    for (const [name, value] of query) {
      const param = params.get(name);
      // actix's query extractor ignores names its struct does not declare; so does the fake.
      if (param) queryObject[name] = coerceQuery(value, param.schema);
    }
    if (compiled.query && !compiled.query(queryObject)) {
      violations.push({ ...at, where: "query", message: describe(compiled.query.errors) });
    }
    if (compiled.body) {
      if (body === undefined) {
        if (compiled.op.requestBody?.required) violations.push({ ...at, where: "body", message: "body is required" });
      } else if (!compiled.body(body)) {
        violations.push({ ...at, where: "body", message: describe(compiled.body.errors) });
      }
    }
    return violations;
  }
}

/** Checks requests against Qdrant's published OpenAPI schemas for every supported line at once. */
export class OpenApiRequestValidator {
  private constructor(private readonly versions: readonly VersionSchema[]) {}

  /**
   * Loads both schemas from `dir`, or returns the reason it cannot (a clone outside the workspace
   * has no `../shared`), so the caller can say so loudly instead of silently passing everything.
   */
  static load(dir: string = findSchemaDir()): OpenApiRequestValidator | { skipped: string } {
    const root = resolve(dir);
    const files = SCHEMA_VERSIONS.map((v) => join(root, `openapi-v${v}.x.json`));
    const missing = files.filter((f) => !existsSync(f));
    if (missing.length > 0) return { skipped: `Qdrant OpenAPI schemas not found (${missing.join(", ")})` };
    return new OpenApiRequestValidator(
      SCHEMA_VERSIONS.map((v, i) => new VersionSchema(v, JSON.parse(readFileSync(files[i]!, "utf8")) as OpenApiDoc)),
    );
  }

  check(method: string, route: string, query: URLSearchParams, body: unknown): SchemaViolation[] {
    return this.versions.flatMap((v) => v.check(method, route, query, body));
  }
}
