/**
 * Exit statuses of the client verbs, run as child processes of the real
 * `engram` binary against a real server, a server with bearer tokens, a
 * server with a tiny response budget, a dead port and a server that accepts
 * connections but never answers.
 *
 * The rows and their pinned count are in test/helpers/exit-rows-client.ts, so
 * the whole-table checks in cli-exit-codes-usage can read them too.
 */
import { describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { describeExitTable, startHungServer } from "./helpers/exit-code-table.js";
import { CLIENT_ROWS } from "./helpers/exit-rows-client.js";
import { runEngram } from "./helpers/run-engram.js";

describeExitTable("engram exit statuses of the client verbs", CLIENT_ROWS);

describe("a client refusal before dialing", () => {
  it("never lets a refused invocation reach the untouched listener", async () => {
    const untouched = await startHungServer();
    try {
      const run = await runEngram(["list", "--scope", "s", "--timeout", "0", "--server", untouched.url]);
      expect(run.code).toBe(EXIT.usage);
      expect(untouched.connections()).toBe(0);
    } finally {
      await untouched.close();
    }
  });
});
