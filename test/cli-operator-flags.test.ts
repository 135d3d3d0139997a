/**
 * Flag refusals the operator sweeps share, run as the real binary against a
 * data directory that holds no store: a refusal that came after the store
 * was opened would read "no engram store in …" instead of the text asserted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT, ruleError } from "../src/argerror/index.js";
import { runEngram } from "./helpers/run-engram.js";

const parent = mkdtempSync(join(tmpdir(), "engram-operator-flags-"));
const nowhere = { ENGRAM_DATA_DIR: join(parent, "none") };

afterAll(() => rmSync(parent, { recursive: true, force: true }));

const HUGE = "99999999999999h";

describe("operator sweep flags", { timeout: 60_000 }, () => {
  it.concurrent.for([
    ["prune-expired", "--apply", "--older-than", HUGE],
    ["spine-review", "purge", "--all-scopes", "--apply", "--older-than", HUGE],
    ["spine-review", "purge", "--class", "archived", "--apply", "--older-than", HUGE],
    ["summarize-missing", "--all-scopes", "--older-than", HUGE],
  ])("an --older-than longer than 1000 years is exit 2, never echoed: engram %s %s %s", async (args, { expect }) => {
    const run = await runEngram(args, nowhere);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: EXIT.usage,
      stdout: "",
      stderr: "field=older-than hint=out_of_range: --older-than must be at most 8760000h (1000 years), or 0\n",
    });
  });

  // An empty shell variable (--class "$CLASS") must never widen a purge to every record.
  it.concurrent.for([
    [["--class", "", "--older-than", "0"], "field=class hint=enum: class must be one of superseded|expired|archived"],
    [["--class", " "], "field=class hint=enum: class must be one of superseded|expired|archived"],
    [["--class", "superseded,"], "field=class hint=enum: class must be one of superseded|expired|archived"],
    [["--category", "", "--older-than", "0"], "field=category hint=required: category must not be blank"],
    [["--tags", "", "--older-than", "0"], "field=tags hint=required: tags entries must not be blank"],
    [["--class", "archived", "--tags", "t1,,t2"], "field=tags hint=required: tags entries must not be blank"],
  ] as const)("a blank narrowing value is refused with exit 2, never dropped: engram spine-review purge %s", async ([flags, envelope], { expect }) => {
    const run = await runEngram(["spine-review", "purge", ...flags, "--all-scopes", "--apply"], nowhere);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: EXIT.usage, stdout: "", stderr: `${envelope}\n` });
  });

  it.concurrent.for([
    ["0", "out_of_range"],
    ["-1", "format"],
    ["many", "format"],
    ["101", "out_of_range"],
  ])("a --top-k outside 1 to 100 is the top-k envelope, whatever the value: engram spine-review consolidate --top-k %s", async ([value, hint], { expect }) => {
    const run = await runEngram(["spine-review", "consolidate", "--all-scopes", "--top-k", value!], nowhere);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: EXIT.usage, stdout: "", stderr: `field=top-k hint=${hint}: --top-k must be an integer from 1 to 100\n` });
  });

  it("takes a --min-score written with an exponent, and refuses one past 1 or not a number", async () => {
    const [exponent, ...refused] = await Promise.all(
      ["1e-1", "2", "0x1"].map((v) => runEngram(["spine-review", "consolidate", "--all-scopes", "--min-score", v], nowhere)),
    );
    // Past the flags, the run stops at the missing store.
    expect(exponent!.stderr).toMatch(/^engram: no engram store in /);
    expect(refused.map((run) => ({ code: run.code, stdout: run.stdout, stderr: run.stderr }))).toEqual(
      ["out_of_range", "format"].map((hint) => ({ code: EXIT.usage, stdout: "", stderr: `field=min-score hint=${hint}: --min-score must be a number from -1 to 1 (a cosine)\n` })),
    );
  });

  it.concurrent.for([
    ["spine-review", "scan", "--scope", ""],
    ["spine-review", "consolidate", "--scope", ""],
    ["spine-review", "purge", "--class", "archived", "--scope", ""],
    ["summarize-missing", "--scope", ""],
    ["spine-review", "scan", "--scope", " "],
    ["spine-review", "consolidate", "--scope", " "],
    ["spine-review", "purge", "--class", "archived", "--scope", " "],
    ["summarize-missing", "--scope", "\t"],
  ])("an empty or blank --scope names no scope and is exit 2 with the sweep envelope: engram %s %s", async (args, { expect }) => {
    const run = await runEngram(args, nowhere);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: EXIT.usage,
      stdout: "",
      stderr: `${ruleError("sweep-scope-or-all-scopes-required").message}\n`,
    });
  });

  it("a purge that selects nothing is the envelope naming the flags that would select something", async () => {
    const run = await runEngram(["spine-review", "purge", "--apply"], nowhere);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: EXIT.usage,
      stdout: "",
      stderr:
        "field=class,category,tags,older-than hint=required: purge needs --class (superseded, expired or archived), or a filter (--category, --tags, --older-than) with --scope or --all-scopes\n",
    });
  });

  it.concurrent.for([
    ["migrate"],
    ["migrate", "revert", "--to", "1"],
    ["prune-expired"],
    ["spine-review", "purge", "--class", "archived", "--all-scopes"],
    ["migrate-remap-owner", "--from-anon", "--to", "bob"],
    ["reindex"],
  ])("ENGRAM_PROGRESS is checked alike for a preview and an apply: engram %s %s %s %s %s", async (args, { expect }) => {
    const env = { ...nowhere, ENGRAM_PROGRESS: "sometimes" };
    const [preview, apply] = await Promise.all([runEngram(args, env), runEngram([...args, "--apply"], env)]);
    const refusal = { code: EXIT.usage, stdout: "", stderr: "engram: ENGRAM_PROGRESS must be auto, always or never\n" };
    expect({ code: preview.code, stdout: preview.stdout, stderr: preview.stderr }).toEqual(refusal);
    expect({ code: apply.code, stdout: apply.stdout, stderr: apply.stderr }).toEqual(refusal);
  });
});
