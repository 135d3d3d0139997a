/**
 * Binds docs/errors.md and docs/errors-cases.md, read as one doc, to
 * src/argerror. Tables in the doc are parsed and compared in both
 * directions with the source tables; every worked example
 * is rendered by the production helpers and must appear verbatim in the doc,
 * and every example line in the doc must be one the tests rendered.
 */
import { Code } from "@connectrpc/connect";
import { codeToHttpStatus } from "@connectrpc/connect/protocol-connect";
import { describe, expect, it } from "vitest";
import {
  ARGUMENT_HINTS,
  ArgError,
  CLASS_CONNECT_CODE,
  CONNECT_CODE_EXIT,
  CONNECT_CODE_NAME,
  EXIT_TABLE,
  HINT_TABLE,
  HINTS,
  INTERNAL_TEXT,
  OPERATOR_HINTS,
  SENTINEL_TABLE,
  UNAVAILABLE_TABLE,
  unavailableText,
  alreadySuperseded,
  ambiguousShortId,
  argError,
  exceedsMaximum,
  idempotencyConflict,
  isHint,
  notFound,
  parse,
  render,
  requestEncodingUnsupported,
  requestNotDecodable,
  requestTooLarge,
  responseTooLarge,
  ruleError,
  ruleImmutable,
  uint64Exceeded,
  type ErrorClass,
} from "../src/argerror/index.js";
import { fieldShapeError } from "../src/connect/decode-diagnosis.js";
import { ScheduleMemoryRequestSchema, SearchMemoriesRequestSchema, StoreMemoryRequestSchema } from "../src/gen/engram/v1/engram_pb.js";
import { rejectUnknownJsonFields } from "../src/connect/unknown-fields.js";

const fieldOf = (schema: typeof SearchMemoriesRequestSchema | typeof ScheduleMemoryRequestSchema, name: string) =>
  schema.fields.find((f) => f.name === name)!;

import { checkArgKinds } from "../src/core/arg-kinds.js";
import { OPERATIONS } from "../src/core/operations.js";
import { DEFAULT_LIMITS } from "../src/core/limits.js";
import type { SearchArgs } from "../src/core/args.js";
import { checkIdInput } from "../src/core/resolve.js";
import { rejectUnknownArguments } from "../src/core/unknown-arguments.js";
import { checkCategory, checkQuery, checkSummary, checkTags, checkUnreservedScope, validateStoreArgs } from "../src/core/validate.js";
import { STEPS, refusalError, type IrreversibleStep } from "../src/store/migrations/index.js";
import { codeCell, codeSpans, diffKeys, NO_DIFF, tableUnder } from "./helpers/markdown-table.js";
import { ERROR_DOC_PAGES, ERROR_DOCS, readDoc } from "./helpers/doc-pages.js";

/** The registry's own irreversible steps, so the doc quotes the reason a refusal really carries. */
const IRREVERSIBLE: IrreversibleStep[] = STEPS.flatMap((s) => (s.reversibility.kind === "irreversible" ? [{ from: s.from, to: s.to, reason: s.reversibility.reason }] : []));

/** The message of what a production check throws. */
function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("the check passed");
}

const WRITE = { content: "c", scope: "project:x", source: "user-said", category: "decision" };

const DOC = ERROR_DOCS;

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16,
  seventeen: 17, eighteen: 18, nineteen: 19, twenty: 20,
};

/** The doc's Class labels, mapped explicitly onto the source's class names. */
const CLASS_LABEL: Record<ErrorClass, string> = {
  malformed: "Malformed",
  out_of_range: "OutOfRange",
  precondition: "Precondition",
  response: "Response",
};
const LABEL_CLASS = new Map(Object.entries(CLASS_LABEL).map(([cls, label]) => [label, cls as ErrorClass]));

const TWELVE_HEADING = "## The twelve hint codes";
const HINT_HEADER = "| Hint code | Class | Meaning | What to do |";
const OPERATOR_HEADING = "## Operator-tier hint codes";
const OPERATOR_HEADER = "| Hint code | Field | Meaning | What to do |";
const CLASS_HEADING = "## Class to Connect code";
const CLASS_HEADER = "| Class | Hints | Connect code | HTTP | CLI exit |";
const SENTINEL_HEADING = "### Business sentinels";
const SENTINEL_HEADER = "| Sentinel | Text on the wire | Connect code | CLI exit |";
const EXIT_HEADING = "## Exit codes";
const EXIT_HEADER = "| Exit | Meaning |";

// ---------------------------------------------------------------------------

describe("docs/errors.md: the twelve hint codes", () => {
  // Parsed inside each test, so a broken doc fails tests rather than collection.
  const table = () => tableUnder(DOC, TWELVE_HEADING, HINT_HEADER);

  it("lists exactly the argument-tier hints of the source, each once", () => {
    const docHints = table().rows.map((r) => codeCell(r[0]!));
    expect(diffKeys(docHints, ARGUMENT_HINTS)).toEqual(NO_DIFF);
  });

  it("names in its heading the number of argument-tier hints", () => {
    const m = /^## The (\w+) hint codes$/m.exec(DOC);
    expect(m).not.toBeNull();
    expect(NUMBER_WORDS[m![1]!]).toBe(ARGUMENT_HINTS.length);
  });

  it("gives every hint the class the source assigns it", () => {
    const mismatches = table()
      .rows
      .map((r) => ({ hint: codeCell(r[0]!), label: r[1]! }))
      .filter(({ hint, label }) => !isHint(hint) || LABEL_CLASS.get(label) !== HINT_TABLE[hint].class);
    expect(mismatches).toEqual([]);
  });

  it("fills in a meaning and a remedy for every hint", () => {
    expect(table().rows.filter((r) => r[2]!.length === 0 || r[3]!.length === 0)).toEqual([]);
  });
});

describe("docs/errors.md: the operator-tier hint codes", () => {
  const table = () => tableUnder(DOC, OPERATOR_HEADING, OPERATOR_HEADER);
  const EXPECTED_FIELD: Record<string, string> = { irreversible: "steps", unsupported: "record_version" };

  it("lists exactly the operator-tier hints of the source, each once", () => {
    expect(diffKeys(table().rows.map((r) => codeCell(r[0]!)), OPERATOR_HINTS)).toEqual(NO_DIFF);
    expect(diffKeys(Object.keys(EXPECTED_FIELD), OPERATOR_HINTS)).toEqual(NO_DIFF);
  });

  it("names the field each operator hint is reported under", () => {
    const got = Object.fromEntries(table().rows.map((r) => [codeCell(r[0]!), codeCell(r[1]!)]));
    expect(got).toEqual(EXPECTED_FIELD);
  });

  it("keeps the operator hints out of the argument-tier table", () => {
    const argHints = tableUnder(DOC, TWELVE_HEADING, HINT_HEADER).rows.map((r) => codeCell(r[0]!));
    expect(argHints.filter((h) => OPERATOR_HINTS.includes(h as never))).toEqual([]);
  });
});

describe("docs/errors.md: class to Connect code", () => {
  const table = () => tableUnder(DOC, CLASS_HEADING, CLASS_HEADER);
  const classes = Object.keys(CLASS_CONNECT_CODE) as ErrorClass[];

  it("has one row per class of the source", () => {
    const docClasses = table().rows.map((r) => LABEL_CLASS.get(r[0]!) ?? `unknown label ${r[0]}`);
    expect(diffKeys(docClasses, classes)).toEqual(NO_DIFF);
  });

  it("gives each class the Connect code, HTTP status and exit status the code derives", () => {
    const rows = table().rows;
    const got = rows.map((r) => [r[0], codeCell(r[2]!), r[3], r[4]]);
    const want = rows.map((r) => {
      const code = CLASS_CONNECT_CODE[LABEL_CLASS.get(r[0]!)!];
      return [r[0], CONNECT_CODE_NAME[code], String(codeToHttpStatus(code)), String(CONNECT_CODE_EXIT[code])];
    });
    expect(got).toEqual(want);
  });

  it("lists under each class exactly the hints of that class", () => {
    for (const r of table().rows) {
      const cls = LABEL_CLASS.get(r[0]!)!;
      expect(diffKeys(codeSpans(r[1]!), HINTS.filter((h) => HINT_TABLE[h].class === cls))).toEqual(NO_DIFF);
    }
  });
});

describe("docs/errors.md: business sentinels", () => {
  const rows = () =>
    tableUnder(DOC, SENTINEL_HEADING, SENTINEL_HEADER).rows.map((r) => ({
      text: codeSpans(r[1]!)[0] ?? "",
      code: codeCell(r[2]!),
      exit: r[3]!,
    }));

  it("documents every sentinel of the source with its Connect code and exit status", () => {
    const problems: string[] = [];
    for (const [kind, { prefix, code }] of Object.entries(SENTINEL_TABLE)) {
      const row = rows().find((r) => r.text.startsWith(prefix));
      if (!row) problems.push(`${kind}: no row`);
      else if (row.code !== CONNECT_CODE_NAME[code] || row.exit !== String(CONNECT_CODE_EXIT[code])) {
        problems.push(`${kind}: documented ${row.code}/${row.exit}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("documents the unclassified fallback as internal error on internal", () => {
    const row = rows().find((r) => r.text === INTERNAL_TEXT);
    expect(row).toEqual({ text: INTERNAL_TEXT, code: "internal", exit: String(CONNECT_CODE_EXIT[Code.Internal]) });
  });

  it("has no row the source does not know", () => {
    const known = [...Object.values(SENTINEL_TABLE).map((s) => s.prefix), INTERNAL_TEXT];
    expect(rows().filter((r) => !known.some((p) => r.text.startsWith(p)))).toEqual([]);
  });
});

describe("docs/errors.md: unavailable", () => {
  const rows = () =>
    tableUnder(DOC, "### Unavailable", "| Reason | Text on the wire | Connect code | CLI exit |").rows.map((r) => ({
      reason: codeCell(r[0]!),
      text: codeCell(r[1]!),
      code: codeCell(r[2]!),
      exit: r[3]!,
    }));

  it("documents exactly the reasons of the source, each with its text, the unavailable code and its exit", () => {
    const want = Object.keys(UNAVAILABLE_TABLE).map((reason) => ({
      reason,
      text: unavailableText(reason as keyof typeof UNAVAILABLE_TABLE),
      code: CONNECT_CODE_NAME[Code.Unavailable],
      exit: String(CONNECT_CODE_EXIT[Code.Unavailable]),
    }));
    expect(rows()).toEqual(want);
  });
});

describe("docs/errors.md: exit codes", () => {
  const table = () => tableUnder(DOC, EXIT_HEADING, EXIT_HEADER);
  const docCodes = () => table().rows.map((r) => r[0]!);
  const srcRows = Object.values(EXIT_TABLE);

  it("lists exactly the exit statuses of the source, each once", () => {
    expect(diffKeys(docCodes(), srcRows.map((r) => String(r.code)))).toEqual(NO_DIFF);
  });

  it("describes each exit status with the meaning the source gives it", () => {
    const got = Object.fromEntries(table().rows.map((r) => [r[0]!, r[1]!.replaceAll("`", "")]));
    const want = Object.fromEntries(srcRows.map((r) => [String(r.code), r.meaning]));
    expect(got).toEqual(want);
  });

  it("lists them in ascending order", () => {
    const nums = docCodes().map(Number);
    expect(nums).toEqual([...nums].sort((a, b) => a - b));
  });
});

// ---------------------------------------------------------------------------
// Worked examples, rendered by production code.
// ---------------------------------------------------------------------------

const EXAMPLES: ReadonlyArray<readonly [string, string]> = [
  ["summary too long", render(["summary"], "too_long", "summary must be at most 512 bytes (got 700)")],
  ["content too long", render(["content"], "too_long", "content too large: 70000 bytes (max 65536)")],
  ["too many tags", render(["tags"], "too_many", "too many tags: 129 (max 128)")],
  ["limit above its maximum", render(["limit"], "out_of_range", "limit exceeds the maximum of 1000")],
  ["timestamp format", render(["created_after"], "format", "created_after must be RFC3339")],
  ["citation kind enum", render(["citations[i].kind"], "enum", "citation 2: kind must be one of file|commit|url|repo")],
  ["discovery prefix", render(["scope"], "prefix", 'scope must be a discovery scope (start with "discovery:")')],
  ["not_after in the past", new ArgError(["not_after"], "ordering", "not_after must be in the future", {}, "out_of_range").message],
  ["paging trio", ruleError("paging-trio-mutually-exclusive").message],
  ["window ordering", ruleError("window-not-before-before-not-after").message],
  ["cross-spine scope", ruleError("scope-required-unless-cross-spine").message],
  ["discovery not schedulable", ruleError("discovery-not-schedulable").message],
  ["response too large", responseTooLarge().message],
  ["supersede set shape", argError("supersedes", "required", "supersedes is required").message],
  ["supersede not found", notFound(["a1b2c3d4e5", "f6g7h8j9k0"]).message],
  ["supersede rule target", ruleImmutable("supersede", ["a1b2c3d4e5"]).message],
  ["supersede already superseded", alreadySuperseded(["a1b2c3d4e5", "m1n2p3q4r5"]).message],
  ["empty ids batch", argError("ids", "required", "ids is required").message],
  ["ids batch too large", argError("ids", "out_of_range", "ids exceeds the maximum of 1000", { max: 1000 }).message],
  ["ids entry too long", argError("ids", "too_long", "ids[3] too large: 300 bytes (max 256)", { index: 3, got: 300, max: 256 }).message],
  ["empty StoreMemories batch", argError("memories", "required", "memories is required").message],
  ["StoreMemories batch over the cap", exceedsMaximum("memories", DEFAULT_LIMITS.maxBatchRecords).message],
  ["irreversible revert", refusalError({ to: 0, candidates: 5, irreversible: IRREVERSIBLE, unsupported: [] })!.message],
  ["unsupported revert", refusalError({ to: 1, candidates: 5, irreversible: [], unsupported: [{ version: 4, count: 3 }] })!.message],
  [
    "irreversible revert with an unsupported clause folded in",
    refusalError({ to: 0, candidates: 5, irreversible: IRREVERSIBLE, unsupported: [{ version: 4, count: 3 }] })!.message,
  ],
  ["ambiguous short id", ambiguousShortId("a1b2c3d4e5").message],
  ["a list field that does not decode", fieldShapeError(fieldOf(SearchMemoriesRequestSchema, "tags")).message],
  ["an unsigned field that does not decode", fieldShapeError(fieldOf(SearchMemoriesRequestSchema, "k")).message],
  ["a Timestamp field that does not decode", fieldShapeError(fieldOf(ScheduleMemoryRequestSchema, "not_before")).message],
  ["a body that is not the input type", requestNotDecodable(SearchMemoriesRequestSchema.typeName).message],
  ["an unknown request encoding", requestEncodingUnsupported().message],
  ["a body over the request limit", requestTooLarge(70012, 65536).message],
  ["an offset no uint64 holds", uint64Exceeded("offset").message],
  ["rule visibility change", ruleImmutable("visibility").message],
  ["idempotency key reuse", idempotencyConflict().message],
  ["id too long", thrown(() => checkIdInput({ limits: DEFAULT_LIMITS } as never, "i".repeat(300)))],
  ["id with a line break", thrown(() => checkIdInput({ limits: DEFAULT_LIMITS } as never, "a1b2c3d4e5\nx"))],
  ["query too long", thrown(() => checkQuery("q".repeat(9000), DEFAULT_LIMITS))],
  ["source outside its set", thrown(() => validateStoreArgs({ ...WRITE, source: "bob" }, DEFAULT_LIMITS, "store"))],
  ["category outside its set", thrown(() => checkCategory("thing", "store"))],
  ["reserved category", thrown(() => checkCategory("rule", "store"))],
  ["reserved scope", thrown(() => checkUnreservedScope("discovery:repo:x"))],
  ["summary on two lines", thrown(() => checkSummary("one\ntwo", DEFAULT_LIMITS))],
  ["blank tag", thrown(() => checkTags(["a", " "], DEFAULT_LIMITS))],
  ["count of the wrong type", thrown(() => checkArgKinds(OPERATIONS.searchMemories.kinds, { k: -1 }))],
  ["string of the wrong type", thrown(() => checkArgKinds(OPERATIONS.searchMemories.kinds, { scope: ["a"] } as unknown as SearchArgs))],
  ["list of the wrong type", thrown(() => checkArgKinds(OPERATIONS.searchMemories.kinds, { tags: "a" } as unknown as SearchArgs))],
  ["flag of the wrong type", thrown(() => checkArgKinds(OPERATIONS.searchMemories.kinds, { full: "yes" } as unknown as SearchArgs))],
  ["unknown MCP argument", thrown(() => rejectUnknownArguments("list_memory", ["scope"], { offset: 5 }))],
  ["unknown MCP argument with a long name", thrown(() => rejectUnknownArguments("list_memory", ["scope"], { ["x".repeat(65)]: 1 }))],
  ["unknown Connect JSON field", thrown(() => rejectUnknownJsonFields(SearchMemoriesRequestSchema, { tag: ["x"] }, "SearchMemories"))],
  ["unknown Connect JSON field with a name not shown", thrown(() => rejectUnknownJsonFields(SearchMemoriesRequestSchema, { "a b": 1 }, "SearchMemories"))],
  [
    "unknown Connect JSON field inside a citation",
    thrown(() => rejectUnknownJsonFields(StoreMemoryRequestSchema, { citations: [{ kind: "file", ref: "a", line: 1 }] }, "StoreMemory")),
  ],
];

/** Every line inside the doc's ```text fences: the place worked examples live. */
function exampleLines(md: string): string[] {
  const out: string[] = [];
  let inText = false;
  for (const line of md.split("\n")) {
    if (!inText && line.trim() === "```text") inText = true;
    else if (inText && line.trim() === "```") inText = false;
    else if (inText && line.trim() !== "") out.push(line);
  }
  if (inText) throw new Error("unterminated ```text block");
  return out;
}

describe("docs/errors.md: worked examples", () => {
  const docLines = exampleLines(DOC);

  it("contains worked examples at all", () => {
    expect(docLines.length).toBeGreaterThan(0);
    expect(EXAMPLES.filter(([, text]) => docLines.includes(text)).length).toBeGreaterThan(0);
  });

  it.each(EXAMPLES)("shows the %s example exactly as production code renders it", (_label, text) => {
    expect(docLines).toContain(text);
  });

  it("shows no example line that production code was not asked to render", () => {
    const rendered = new Set(EXAMPLES.map(([, text]) => text));
    expect(docLines.filter((l) => !rendered.has(l))).toEqual([]);
  });

  it("shows the examples the contract pins word for word", () => {
    const pinned = [
      "field=summary hint=too_long: summary must be at most 512 bytes (got 700)",
      "field=content hint=too_long: content too large: 70000 bytes (max 65536)",
      "field=tags hint=too_many: too many tags: 129 (max 128)",
      "field=cursor_mode,offset,page_token hint=mutually_exclusive: cursor_mode, offset, and page_token are mutually exclusive",
      "field=limit hint=out_of_range: limit exceeds the maximum of 1000",
      "field=response hint=response_too_large: the result is too large to return in one response; retry with a smaller limit or k, or omit full",
      "not found: a1b2c3d4e5, f6g7h8j9k0",
      "target is already superseded: a1b2c3d4e5, m1n2p3q4r5",
    ];
    expect(pinned.filter((p) => !docLines.includes(p))).toEqual([]);
  });

  it("uses an operator hint only under the field its table names", () => {
    const fieldOf: Record<string, string> = { irreversible: "steps", unsupported: "record_version" };
    const wrong = docLines
      .map((l) => parse(l))
      .filter((p) => p.kind === "envelope" && p.hint in fieldOf && p.fields.join(",") !== fieldOf[p.hint]);
    expect(wrong).toEqual([]);
  });

  it("reads every envelope-shaped example back through parse with a known hint", () => {
    const unreadable = docLines.filter((l) => l.startsWith("field=") && parse(l).kind !== "envelope");
    expect(unreadable).toEqual([]);
  });
});

describe("docs/errors.md: its pages", () => {
  it("links each page of the error reference from the first", () => {
    const first = readDoc(ERROR_DOC_PAGES[0]);
    for (const page of ERROR_DOC_PAGES.slice(1)) expect(first, page).toContain(`](${page})`);
  });
});
