/**
 * Exit statuses of the commands that open a store or start a server
 * themselves: the operator verbs against a store seeded in this process
 * (closed before any child opens it), and serve and mcp refusing a malformed
 * setting before the store opens.
 *
 * The rows and their pinned count are in test/helpers/exit-rows-operator.ts,
 * so the whole-table checks in cli-exit-codes-usage can read them too.
 */
import { describeExitTable } from "./helpers/exit-code-table.js";
import { OPERATOR_ROWS } from "./helpers/exit-rows-operator.js";

describeExitTable("engram exit statuses of the operator verbs, serve and mcp", OPERATOR_ROWS);
