import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
} from "../src/gen/google/rpc/error_details_pb.js";
import {
  ARGUMENT_HINTS,
  ArgError,
  CLASS_CONNECT_CODE,
  CONNECT_CODE_EXIT,
  CONNECT_CODE_NAME,
  ERROR_DOMAIN,
  EXIT,
  EXIT_TABLE,
  HINTS,
  INTERNAL_TEXT,
  OPERATOR_HINTS,
  ResponseTooLargeError,
  RESPONSE_TOO_LARGE_DETAIL,
  SentinelError,
  alreadySuperseded,
  ambiguousShortId,
  argError,
  classOf,
  classify,
  connectDetails,
  exitForConnectCode,
  idempotencyConflict,
  notFound,
  parse,
  reasonOf,
  render,
  responseTooLarge,
  ruleError,
  ruleImmutable,
  staleSummary,
  type ErrorClass,
} from "../src/argerror/index.js";

/** Every Connect code, taken from the numeric members of the enum. */
const ALL_CODES = Object.values(Code).filter((v): v is Code => typeof v === "number");

describe("the hint vocabulary", () => {
  it("has twelve argument-tier hints and two operator-tier hints", () => {
    expect(ARGUMENT_HINTS).toHaveLength(12);
    expect([...OPERATOR_HINTS].sort()).toEqual(["irreversible", "unsupported"]);
    expect(HINTS).toHaveLength(14);
  });
});

describe("render and parse", () => {
  it.each(HINTS)("reads back the fields, hint and detail of a rendered %s envelope", (hint) => {
    const fields = ["summary", "not_before", "citations[i].kind"];
    const detail = "a detail: with a colon, and commas";
    const text = render(fields, hint, detail);
    expect(text).toBe(`field=summary,not_before,citations[i].kind hint=${hint}: ${detail}`);
    expect(parse(text)).toEqual({ kind: "envelope", fields, hint, detail });
  });

  it("renders a single field without a trailing comma", () => {
    expect(render(["limit"], "out_of_range", "limit exceeds the maximum of 1000")).toBe(
      "field=limit hint=out_of_range: limit exceeds the maximum of 1000",
    );
  });

  it("refuses to render an envelope that names no field", () => {
    expect(() => render([], "required", "x")).toThrow();
  });

  it("reads kebab-case CLI flag names as fields", () => {
    const text = ruleError("verify-fail-on-accepted-values").message;
    expect(parse(text)).toMatchObject({ kind: "envelope", fields: ["fail-on"], hint: "enum" });
  });

  it.each([
    ["a not-found sentinel", "not found: x"],
    ["an empty string", ""],
    ["a number", 42],
    ["undefined", undefined],
    ["null", null],
    ["an MCP SDK protocol error", "MCP error -32602: Tool nope not found"],
    ["an unknown hint code", "field=limit hint=too_big: limit is too big"],
    ["an envelope without a field list", "field= hint=required: x"],
    ["internal error", "internal error"],
  ])("treats %s as an opaque message without throwing", (_label, value) => {
    let result: ReturnType<typeof parse> | undefined;
    expect(() => {
      result = parse(value);
    }).not.toThrow();
    expect(result).toEqual({ kind: "opaque", text: String(value) });
  });
});

describe("class to Connect code", () => {
  const expected: Record<ErrorClass, Code> = {
    malformed: Code.InvalidArgument,
    out_of_range: Code.OutOfRange,
    precondition: Code.FailedPrecondition,
    response: Code.ResourceExhausted,
  };

  it.each(Object.entries(expected))("maps the %s class to its Connect code", (cls, code) => {
    expect(CLASS_CONNECT_CODE[cls as ErrorClass]).toBe(code);
  });

  it("has no class beyond the four it documents", () => {
    expect(Object.keys(CLASS_CONNECT_CODE).sort()).toEqual(Object.keys(expected).sort());
  });

  it("sends the out_of_range hint as invalid_argument, because it is Malformed by decision", () => {
    expect(classOf("out_of_range")).toBe("malformed");
    const err = argError("limit", "out_of_range", "limit exceeds the maximum of 1000");
    expect(classify(err).code).toBe(Code.InvalidArgument);
  });

  it("sends response_too_large as resource_exhausted", () => {
    expect(CLASS_CONNECT_CODE[classOf("response_too_large")]).toBe(Code.ResourceExhausted);
  });
});

describe("Connect code to CLI exit", () => {
  const named: Record<string, number> = {
    invalid_argument: 2,
    out_of_range: 2,
    failed_precondition: 2,
    unauthenticated: 3,
    permission_denied: 3,
    not_found: 4,
    unavailable: 5,
    canceled: 5,
    deadline_exceeded: 6,
    resource_exhausted: 10,
    internal: 1,
    already_exists: 1,
    unknown: 1,
  };
  const cases = ALL_CODES.map((c) => [CONNECT_CODE_NAME[c], c] as const);

  it("knows a wire name for every Connect code", () => {
    expect(cases.every(([name]) => typeof name === "string" && name.length > 0)).toBe(true);
    expect(cases).toHaveLength(16);
  });

  it.each(cases)("exits with the documented status for %s", (name, code) => {
    expect(exitForConnectCode(code)).toBe(named[name] ?? 1);
    expect(CONNECT_CODE_EXIT[code]).toBe(named[name] ?? 1);
  });

  it("never exits 7 for an error, since 7 means findings on a successful run", () => {
    expect(Object.values(CONNECT_CODE_EXIT)).not.toContain(7);
    expect(EXIT.findings).toBe(7);
  });

  it("publishes exactly the exit statuses 0 to 7 and 10", () => {
    expect(Object.values(EXIT_TABLE).map((r) => r.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 10]);
  });
});

describe("classify", () => {
  it("gives an argument error its class's code and the envelope as text", () => {
    const err = argError("summary", "too_long", "summary must be at most 512 bytes (got 700)", { got: 700, max: 512 });
    const c = classify(err);
    expect(c).toMatchObject({ code: Code.OutOfRange, message: err.message, internal: false });
    expect(c.message).toBe("field=summary hint=too_long: summary must be at most 512 bytes (got 700)");
    expect(c.argError).toBe(err);
  });

  it("gives a relational rule error the precondition code", () => {
    const err = ruleError("paging-trio-mutually-exclusive");
    expect(classify(err)).toMatchObject({ code: Code.FailedPrecondition, message: err.message, internal: false });
  });

  it("honours the class override of the clock-dependent ordering check", () => {
    const err = new ArgError(["not_after"], "ordering", "not_after must be in the future", {}, "out_of_range");
    expect(classify(err).code).toBe(Code.OutOfRange);
  });

  it.each([
    ["not found", notFound(["a1b2c3d4e5"]), Code.NotFound, "not found: a1b2c3d4e5"],
    ["ambiguous short id", ambiguousShortId("a1b2c"), Code.FailedPrecondition, "ambiguous short id: a1b2c"],
    ["already superseded", alreadySuperseded(["a", "b"]), Code.FailedPrecondition, "target is already superseded: a, b"],
    [
      "rule immutable",
      ruleImmutable("private"),
      Code.FailedPrecondition,
      "rules are always shared — delete the rule instead of making it private",
    ],
    ["stale summary", staleSummary(), Code.FailedPrecondition, staleSummary().message],
    ["idempotency conflict", idempotencyConflict(), Code.AlreadyExists, idempotencyConflict().message],
  ] as const)("passes the %s sentinel through with its own code and text", (_label, err, code, text) => {
    expect(err).toBeInstanceOf(SentinelError);
    expect(classify(err)).toEqual({ code, message: text, internal: false });
  });

  it("hides an unclassified error behind internal error", () => {
    const secret = "password=hunter2 at /srv/secret/path";
    const c = classify(new Error(secret));
    expect(c.code).toBe(Code.Internal);
    expect(c.message).toBe(INTERNAL_TEXT);
    expect(c.message).toBe("internal error");
    expect(c.internal).toBe(true);
    expect(c.argError).toBeUndefined();
    expect(JSON.stringify(c)).not.toContain("hunter2");
  });

  it("hides a thrown non-error value behind internal error", () => {
    expect(classify("boom")).toEqual({ code: Code.Internal, message: INTERNAL_TEXT, internal: true });
  });

  it("turns a store's response-too-large error into the fixed envelope with no number in it", () => {
    const c = classify(new ResponseTooLargeError("qdrant response exceeded 4194304 bytes"));
    expect(c.code).toBe(Code.ResourceExhausted);
    expect(c.message).toBe(responseTooLarge().message);
    expect(c.message).not.toMatch(/\d/);
    // The caller's request, not a server fault: no lane logs it at error.
    expect(c.internal).toBe(false);
  });

  it("keeps cancellation and deadlines as their own codes", () => {
    expect(classify(new ConnectError("deadline", Code.DeadlineExceeded)).code).toBe(Code.DeadlineExceeded);
    expect(classify(new ConnectError("gone", Code.Canceled)).code).toBe(Code.Canceled);
    const abort = new Error("aborted");
    abort.name = "AbortError";
    expect(classify(abort).code).toBe(Code.Canceled);
  });
});

describe("connectDetails", () => {
  function find<T>(details: ReturnType<typeof connectDetails>, typeName: string): T | undefined {
    return details.find((d) => d.desc.typeName === typeName)?.value as T | undefined;
  }

  it("carries an ErrorInfo whose reason is the hint in upper snake case, with fields, hint and bounds", () => {
    const err = argError("summary", "too_long", "summary must be at most 512 bytes (got 700)", { got: 700, max: 512 });
    const details = connectDetails(err);
    const info = details.find((d) => d.desc === ErrorInfoSchema)?.value;
    expect(info).toMatchObject({
      reason: "TOO_LONG",
      domain: "engram.v1",
      metadata: { fields: "summary", hint: "too_long", got: "700", max: "512" },
    });
    expect(ERROR_DOMAIN).toBe("engram.v1");
    expect(reasonOf(err)).toBe("TOO_LONG");
  });

  it("adds a BadRequest with one violation per field for the out_of_range class", () => {
    const err = argError("summary", "too_long", "summary must be at most 512 bytes (got 700)");
    const details = connectDetails(err);
    expect(details.map((d) => d.desc)).toEqual([ErrorInfoSchema, BadRequestSchema]);
    const br = find<{ fieldViolations: Array<{ field: string; description: string; reason: string }> }>(
      details,
      "google.rpc.BadRequest",
    );
    expect(br?.fieldViolations).toEqual([
      expect.objectContaining({ field: "summary", description: err.detail, reason: "TOO_LONG" }),
    ]);
  });

  it("adds a BadRequest for the invalid_argument class", () => {
    const err = argError("limit", "out_of_range", "limit exceeds the maximum of 1000", { max: 1000 });
    const details = connectDetails(err);
    expect(details.map((d) => d.desc)).toEqual([ErrorInfoSchema, BadRequestSchema]);
    expect(details[0]?.value).toMatchObject({ reason: "OUT_OF_RANGE", metadata: { fields: "limit", hint: "out_of_range", max: "1000" } });
  });

  it("adds a PreconditionFailure, not a BadRequest, for the failed_precondition class", () => {
    const err = ruleError("paging-trio-mutually-exclusive");
    const details = connectDetails(err);
    expect(details.map((d) => d.desc)).toEqual([ErrorInfoSchema, PreconditionFailureSchema]);
    const pf = find<{ violations: Array<{ type: string; subject: string; description: string }> }>(
      details,
      "google.rpc.PreconditionFailure",
    );
    expect(pf?.violations.map((v) => v.subject)).toEqual(["cursor_mode", "offset", "page_token"]);
    expect(pf?.violations.every((v) => v.type === "MUTUALLY_EXCLUSIVE" && v.description === err.detail)).toBe(true);
    expect(details[0]?.value).toMatchObject({ metadata: { fields: "cursor_mode,offset,page_token" } });
  });

  it("gives response_too_large only the ErrorInfo", () => {
    const details = connectDetails(responseTooLarge());
    expect(details.map((d) => d.desc)).toEqual([ErrorInfoSchema]);
    expect(details[0]?.value).toMatchObject({ reason: "RESPONSE_TOO_LARGE", metadata: { fields: "response" } });
    expect(RESPONSE_TOO_LARGE_DETAIL).not.toMatch(/\d/);
  });
});
