/**
 * Client settings from the environment: a blank one counts as unset, as
 * every engram setting does, and a bad one is named as the variable it came
 * from, never repeated.
 */
import { describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { runEngram } from "./helpers/run-engram.js";

/** Nothing listens on the discard port: a call that gets past its flags ends unreachable. */
const NOBODY = "http://127.0.0.1:9";

describe("client settings from the environment", { timeout: 60_000 }, () => {
  it("a blank ENGRAM_TIMEOUT is the default deadline; a blank --timeout typed is refused", async () => {
    const blank = await runEngram(["list", "--scope", "s"], { ENGRAM_SERVER_URL: NOBODY, ENGRAM_TIMEOUT: "  " });
    expect(blank.code).toBe(EXIT.unavailable);
    expect(blank.stderr).not.toContain("ENGRAM_TIMEOUT");
    const typed = await runEngram(["list", "--scope", "s", "--timeout", " "], { ENGRAM_SERVER_URL: NOBODY });
    expect({ code: typed.code, stderr: typed.stderr }).toEqual({ code: EXIT.usage, stderr: "engram: --timeout must be a positive duration such as 500ms, 30s or 2m\n" });
  });

  it("a bad ENGRAM_SERVER_URL is named as the variable, without its value", async () => {
    const run = await runEngram(["list", "--scope", "s"], { ENGRAM_SERVER_URL: "ftp://zzqx-secret-993" });
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: EXIT.usage,
      stdout: "",
      stderr: "engram: ENGRAM_SERVER_URL must be an absolute http:// or https:// URL\n",
    });
  });
});
