import { describe, expect, it } from "vitest";
import { codeCell, diffKeys, firstTable, NO_DIFF, tableUnder } from "./helpers/markdown-table.js";

const HINT_HEADER = "| Hint code | Class | Meaning | What to do |";

describe("the table reader used by these tests", () => {
  const fixture = [
    "# Fixture",
    "## The three hint codes",
    "",
    "| Hint code | Class | Meaning | What to do |",
    "|---|---|---|---|",
    "| `required` | Malformed | absent | send it |",
    "| `enum` | Malformed | one of a \\| b | pick one |",
    "",
    "## Next section",
    "| Hint code | Class | Meaning | What to do |",
    "|---|---|---|---|",
    "| `too_long` | OutOfRange | long | shorten |",
  ].join("\n");

  it("reports a row missing from a fixture table as a difference", () => {
    const table = tableUnder(fixture, "## The three hint codes", HINT_HEADER);
    const codes = table.rows.map((r) => codeCell(r[0]!));
    const diff = diffKeys(codes, ["required", "enum", "too_long"]);
    expect(diff.missing).toEqual(["too_long"]);
    expect(diff).not.toEqual(NO_DIFF);
  });

  it("reports a row the source does not know as an extra entry", () => {
    const codes = tableUnder(fixture, "## The three hint codes", HINT_HEADER).rows.map((r) => codeCell(r[0]!));
    expect(diffKeys(codes, ["required"]).extra).toEqual(["enum"]);
  });

  it("reports a repeated row as a duplicate", () => {
    expect(diffKeys(["enum", "enum"], ["enum"]).duplicated).toEqual(["enum"]);
  });

  it("keeps an escaped pipe inside its cell", () => {
    const table = tableUnder(fixture, "## The three hint codes", HINT_HEADER);
    expect(table.rows[1]![2]).toBe("one of a | b");
  });

  it("stops at the next heading instead of reading a later table", () => {
    const table = tableUnder(fixture, "## The three hint codes", HINT_HEADER);
    expect(table.rows).toHaveLength(2);
  });

  it("fails when the heading, the table or the expected header is absent", () => {
    expect(() => tableUnder(fixture, "## Nowhere", HINT_HEADER)).toThrow(/heading not found/);
    expect(() => firstTable("no table here")).toThrow(/no table/);
    expect(() => tableUnder(fixture, "## The three hint codes", "| Code | Meaning |")).toThrow(/unexpected header/);
  });

  it("rejects a code cell that is not one code span", () => {
    expect(() => codeCell("required")).toThrow();
    expect(codeCell("`required`")).toBe("required");
  });
});
