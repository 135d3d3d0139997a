/**
 * The exit-status rows that need neither a server nor a store: the catalog,
 * help, version and completion, and a verb the CLI does not know.
 */
import { EXIT } from "../../src/argerror/index.js";
import type { Row } from "./exit-code-table.js";

export const USAGE_ROWS: Row[] = [
  // 0: success
  { name: "a bare engram prints its catalog", args: [], target: "none", exit: EXIT.ok },
  { name: "--version prints the version", args: ["--version"], target: "none", exit: EXIT.ok },
  { name: "help for a verb is a success", args: ["help", "search"], target: "none", exit: EXIT.ok },
  { name: "completion bash prints a script", args: ["completion", "bash"], target: "none", exit: EXIT.ok },
  { name: "the version verb prints the version", args: ["version"], target: "none", exit: EXIT.ok },
  { name: "help for a nested command is a success", args: ["help", "migrate", "revert"], target: "none", exit: EXIT.ok },

  // 1: unclassified
  {
    name: "a mistyped verb is exit 1 with a suggestion",
    args: ["serch", "--query", "x"],
    target: "none",
    exit: EXIT.unclassified,
    stderrLine: "engram: unknown command 'serch' (did you mean search?)",
  },
  {
    name: "a mistyped verb is one line, its suggestion at the end",
    args: ["serach"],
    target: "none",
    exit: EXIT.unclassified,
    stderrWhole: "engram: unknown command 'serach' (did you mean search?)\n",
  },
];

/** Pinned so a deleted row fails the suite instead of shrinking it. */
export const EXPECTED_ROW_COUNT = 8;
