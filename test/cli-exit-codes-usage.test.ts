/**
 * Exit statuses of the invocations that need neither a server nor a store
 * (the catalog, help, version, completion, an unknown verb), and the checks
 * over the exit-status table as a whole: its rows are split across three
 * files by what the child talks to, and only together do they cover every
 * status in the exit table of src/argerror.
 *
 * The whole-table checks live here because this file starts nothing, so they
 * cost no server.
 */
import { describe, expect, it } from "vitest";
import { EXIT_TABLE } from "../src/argerror/index.js";
import { describeExitTable } from "./helpers/exit-code-table.js";
import { CLIENT_ROWS, EXPECTED_ROW_COUNT as CLIENT_ROW_COUNT } from "./helpers/exit-rows-client.js";
import { OPERATOR_ROWS, EXPECTED_ROW_COUNT as OPERATOR_ROW_COUNT } from "./helpers/exit-rows-operator.js";
import { USAGE_ROWS, EXPECTED_ROW_COUNT as USAGE_ROW_COUNT } from "./helpers/exit-rows-usage.js";

/** Pinned as well as each file's count, so a whole file of rows cannot go missing with its pin. */
const EXPECTED_TOTAL_ROW_COUNT = 75;

const ALL_ROWS = [...CLIENT_ROWS, ...OPERATOR_ROWS, ...USAGE_ROWS];

describeExitTable("engram exit statuses that need no server and no store", USAGE_ROWS);

describe("the exit-status table as a whole", () => {
  it("has the pinned number of rows, each with a unique name", () => {
    expect(CLIENT_ROWS).toHaveLength(CLIENT_ROW_COUNT);
    expect(OPERATOR_ROWS).toHaveLength(OPERATOR_ROW_COUNT);
    expect(USAGE_ROWS).toHaveLength(USAGE_ROW_COUNT);
    expect(ALL_ROWS).toHaveLength(EXPECTED_TOTAL_ROW_COUNT);
    expect(new Set(ALL_ROWS.map((r) => r.name)).size).toBe(ALL_ROWS.length);
  });

  it("covers every exit status in the table", () => {
    const covered = new Set(ALL_ROWS.map((r) => r.exit));
    const all = Object.values(EXIT_TABLE).map((r) => r.code);
    expect([...covered].sort((a, b) => a - b)).toEqual([...all].sort((a, b) => a - b));
  });
});
