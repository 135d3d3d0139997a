/**
 * Issue 24, the CLI's part: the edges a careless user reaches, one table per
 * item, each row the exact stderr line and exit status of the built binary
 * run as a child process. Every row plants a marker where a value goes and
 * checks that nothing the binary prints repeats it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, RULES, ruleError } from "../src/argerror/index.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { grpcFrame, rawCall } from "./helpers/raw-rpc.js";
import { runEngram } from "./helpers/run-engram.js";

const MARK = "ZZMARK";
const BIG = "99999999999999999999999";
const TWO_TO_64 = "18446744073709551616";
const DOCS = new URL("../docs/", import.meta.url);

let server: TestServer;
let dataDir = "";

beforeAll(async () => {
  server = await startTestServer();
  dataDir = mkdtempSync(join(tmpdir(), "engram-edges-"));
});
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the binary against the test server (client verbs) and a private data directory (operator verbs). */
function engram(args: readonly string[], env: Record<string, string> = {}) {
  return runEngram(args, { ENGRAM_SERVER_URL: server.url, ENGRAM_DATA_DIR: dataDir, ...env });
}

function expectNoEcho(run: { stdout: string; stderr: string }, ...planted: string[]): void {
  for (const p of planted) expect(run.stdout + run.stderr, p).not.toContain(p);
}

describe("item 2: scope with cross_spine is a declared CLI-tier rule", () => {
  const envelope = ruleError("scope-cross-spine-mutually-exclusive").message;

  it.each([
    ["search", ["search", "--query", "q", "--scope", MARK, "--cross-spine"]],
    ["list", ["list", "--scope", MARK, "--cross-spine"]],
    ["list-scheduled", ["list-scheduled", "--scope", MARK, "--cross-spine"]],
  ])("%s refuses --scope with --cross-spine by the rule, exit 2", async (_verb, args) => {
    const run = await engram(args);
    expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ exit: EXIT.usage, stderr: `${envelope}\n`, stdout: "" });
    expectNoEcho(run, MARK);
  });

  it("is declared beside destructive-requires-apply, in the CLI tier, with the fields and hint the envelope shows", () => {
    expect(RULES["scope-cross-spine-mutually-exclusive"]).toMatchObject({ tier: "cli", fields: ["scope", "cross_spine"], hint: "mutually_exclusive" });
    expect(RULES["destructive-requires-apply"].tier).toBe("cli");
    expect(envelope).toBe(
      "field=scope,cross_spine hint=mutually_exclusive: scope and cross_spine cannot be combined; cross_spine already spans every scope the caller may read",
    );
  });

  it.each([["search"], ["list"], ["list-scheduled"]])("the help of %s repeats the rule's one sentence", async (verb) => {
    const run = await engram(["help", verb]);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout.replace(/\s+/g, " ")).toContain(RULES["scope-cross-spine-mutually-exclusive"].sentence);
  });

  it.each([["cli.md"], ["tools-memories.md"]])("docs/%s states the lane difference in the rule's sentence", (doc) => {
    const text = readFileSync(new URL(doc, DOCS), "utf8").replace(/\s+/g, " ");
    expect(text).toContain(RULES["scope-cross-spine-mutually-exclusive"].sentence);
    expect(text).toContain("scope-cross-spine-mutually-exclusive");
  });
});

describe("item 3: a number too large for the wire", () => {
  const cap = (field: string) => `field=${field} hint=out_of_range: ${field} exceeds the maximum of 1000`;
  /** [label, CLI arguments, the envelope, procedure, the same number in a JSON body]. */
  const rows: [string, string[], string, string, string][] = [
    ["search --k", ["search", "--query", "x", "--scope", "a", "--k", BIG], cap("k"), "SearchMemories", `{"query":"x","scope":"a","k":${BIG}}`],
    ["search --k without --query", ["search", "--scope", "a", "--k", BIG], "field=query hint=required: query is required", "SearchMemories", `{"scope":"a","k":${BIG}}`],
    ["list --limit", ["list", "--scope", "a", "--limit", BIG], cap("limit"), "ListMemories", `{"scope":"a","limit":${BIG}}`],
    [
      "list --offset",
      ["list", "--scope", "a", "--offset", TWO_TO_64],
      "field=offset hint=out_of_range: offset exceeds the maximum of 18446744073709551615",
      "ListMemories",
      `{"scope":"a","offset":"${TWO_TO_64}"}`,
    ],
    ["related --k", ["related", "x", "--k", BIG], cap("k"), "RelatedMemories", `{"id":"x","k":${BIG}}`],
    ["list-tags --limit", ["list-tags", "--limit", TWO_TO_64], cap("limit"), "ListTags", `{"limit":"${TWO_TO_64}"}`],
    ["list-scheduled --limit", ["list-scheduled", "--scope", "a", "--limit", BIG], cap("limit"), "ListScheduled", `{"scope":"a","limit":${BIG}}`],
    ["search-discoveries --k", ["search-discoveries", "--query", "x", "--k", BIG], cap("k"), "SearchDiscoveries", `{"query":"x","k":${BIG}}`],
    ["search --k of 400 digits", ["search", "--query", "x", "--scope", "a", "--k", `9${"9".repeat(399)}`], cap("k"), "SearchMemories", `{"query":"x","scope":"a","k":9${"9".repeat(399)}}`],
  ];

  it.each(rows)("%s: the envelope Connect JSON and gRPC-Web JSON give, exit 2, the number never repeated", async (_label, args, expected, procedure, body) => {
    const run = await engram(args);
    expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ exit: EXIT.usage, stderr: `${expected}\n`, stdout: "" });
    expectNoEcho(run, BIG, TWO_TO_64);
    for (const [wire, bytes] of [["connect-json", Buffer.from(body)], ["grpc-web", grpcFrame(Buffer.from(body))]] as const) {
      const a = await rawCall(server.url, wire, procedure, bytes, { json: true });
      expect({ wire, code: a.code, message: a.message }).toEqual({ wire, code: Code.InvalidArgument, message: expected });
    }
  });

  it("still sends the largest number a uint64 holds, and the server decides", async () => {
    const run = await engram(["list", "--scope", "a", "--offset", "18446744073709551615", "--output", "json"]);
    expect({ exit: run.code, stderr: run.stderr }).toEqual({ exit: EXIT.ok, stderr: "" });
  });

  it("an operator flag of any size is judged by its own range", async () => {
    const run = await engram(["migrate", "--batch-size", BIG]);
    expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ exit: EXIT.usage, stderr: "field=batch-size hint=out_of_range: --batch-size must be an integer from 1 to 100000\n", stdout: "" });
  });
});

describe("item 4: flag errors name the flag and what it expects, never the value", () => {
  /** [label, arguments, exit, the whole stderr]. */
  const rows: [string, string[], number, string][] = [
    ["search --k", ["search", "--query", "x", "--scope", "a", "--k", MARK], EXIT.usage, "field=k hint=format: k must be a non-negative integer"],
    ["list --limit", ["list", "--scope", "a", "--limit", MARK], EXIT.usage, "field=limit hint=format: limit must be a non-negative integer"],
    ["list --offset", ["list", "--scope", "a", "--offset", `-${MARK}`], EXIT.usage, "field=offset hint=format: offset must be a non-negative integer"],
    ["related --k", ["related", "x", "--k", MARK], EXIT.usage, "field=k hint=format: k must be a non-negative integer"],
    ["a client verb's --output", ["search", "--query", "x", "--scope", "a", "--output", MARK], EXIT.usage, "engram: --output must be one of json|text"],
    // Letters and 0 get the one line that states the range batchSize() enforces.
    ["migrate --batch-size", ["migrate", "--batch-size", MARK], EXIT.usage, "field=batch-size hint=format: --batch-size must be an integer from 1 to 100000"],
    ["migrate --batch-size 0", ["migrate", "--batch-size", "0"], EXIT.usage, "field=batch-size hint=out_of_range: --batch-size must be an integer from 1 to 100000"],
    ["migrate-remap-owner --batch-size", ["migrate-remap-owner", "--from-anon", "--to", "x", "--batch-size", MARK], EXIT.usage, "field=batch-size hint=format: --batch-size must be an integer from 1 to 100000"],
    ["migrate --output", ["migrate", "--output", MARK], EXIT.usage, "field=output hint=enum: --output must be one of json|text"],
    ["import --batch-size", ["import", "-", "--batch-size", MARK], EXIT.usage, "field=batch-size hint=format: --batch-size must be an integer from 1 to 100000"],
    ["an unknown flag with a value", ["search", `--tok=${MARK}`], EXIT.usage, "engram: unknown option '--tok'"],
    ["a value given to a switch", ["search", `--full=${MARK}`], EXIT.usage, "engram: --full takes no value"],
    ["an unknown flag that is not a name", ["search", `--${MARK} x`], EXIT.usage, "engram: unknown option"],
    ["a verb that is not a name", [`${MARK} ${MARK}`], EXIT.unclassified, "engram: unknown command"],
    ["help on no such command", ["help", "nosuchcmd"], EXIT.usage, "engram: help: unknown command 'nosuchcmd'; run `engram help` for the list of commands"],
    ["help on no such subcommand", ["help", "migrate", "nosub"], EXIT.usage, "engram: help: unknown command 'nosub'; run `engram help` for the list of commands"],
    ["help on a word that is not a name", ["help", `${MARK}/${MARK}`], EXIT.usage, "engram: help: unknown command; run `engram help` for the list of commands"],
  ];

  it.each(rows)("%s", async (_label, args, exit, stderr) => {
    const run = await engram(args);
    expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ exit, stderr: `${stderr}\n`, stdout: "" });
    expectNoEcho(run, MARK);
  });

  it.each([
    ["help", ["help"], "Usage: engram [options] [command]"],
    ["help migrate revert", ["help", "migrate", "revert"], "Usage: engram migrate revert [options]"],
  ])("%s still prints help, exit 0", async (_label, args, head) => {
    const run = await engram(args);
    expect({ exit: run.code, stderr: run.stderr, first: run.stdout.split("\n")[0] }).toEqual({ exit: EXIT.ok, stderr: "", first: head });
  });
});

describe("item 10: import of a path it cannot use, list-rules' CATEGORY", () => {
  it("import of a path that does not exist says ENOENT and repeats nothing of the path, exit 2", async () => {
    const run = await engram(["import", `/nonexistent/${MARK}/x.jsonl`]);
    expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({
      exit: EXIT.usage,
      stderr: "engram: cannot read the import file (ENOENT)\n",
      stdout: "",
    });
    expectNoEcho(run, MARK);
  });

  /** [label, the path given a fresh directory whose name holds the mark, the whole stderr]. */
  const notFiles: [string, (dir: string) => string, string][] = [
    ["a directory", (dir) => dir, "engram: cannot read the import file: it is a directory, not a regular file (EISDIR)"],
    ["a device", () => "/dev/null", "engram: cannot read the import file: it is not a regular file; pass a pipe or a device on standard input with -"],
  ];

  it.each(notFiles)("import of %s says what it is, with a real errno word or none, and repeats nothing of the path, exit 2", async (_label, path, line) => {
    const dir = mkdtempSync(join(tmpdir(), `engram-edges-${MARK}-`));
    try {
      const run = await engram(["import", path(dir)]);
      expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ exit: EXIT.usage, stderr: `${line}\n`, stdout: "" });
      expectNoEcho(run, MARK, "ENOTFILE");
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("list-rules text names every row's category", async () => {
    const rule = await server.client().storeRule({ content: "run tsc before pushing", scope: "rule:repo:edges", summary: "run tsc" });
    const run = await engram(["list-rules", "--scopes", "rule:repo:edges", "--output", "text"]);
    expect(run.code).toBe(EXIT.ok);
    const [header, row] = run.stdout.trimEnd().split("\n").map((l) => l.split(/ {2,}/));
    expect({ header, row }).toEqual({ header: ["SHORT_ID", "SCOPE", "CATEGORY", "SUMMARY"], row: [rule.shortId, "rule:repo:edges", "rule", "run tsc"] });
  });
});

describe("item 11: the server's own words as sent; retired MEM_* variables refused", () => {
  it.each([
    ["not found", async () => ["get", MARK.padEnd(10, "Q")], EXIT.not_found, `not found: ${MARK.padEnd(10, "Q")}`],
    [
      "rule immutability",
      async () => ["update", (await server.client().storeRule({ content: "c", scope: "rule:repo:edges", summary: "s" })).id, "--private"],
      EXIT.usage,
      "rules are always shared — delete the rule instead of making it private",
    ],
  ] as const)("a %s sentinel is the whole stderr line, without the engram: prefix", async (_label, args, exit, line) => {
    const run = await engram(await args());
    expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ exit, stderr: `${line}\n`, stdout: "" });
  });

  it("a transport failure is the CLI's own message and keeps the prefix", async () => {
    const run = await engram(["get", "x", "--server", "http://127.0.0.1:1"]);
    expect({ exit: run.code, stderr: run.stderr }).toEqual({ exit: EXIT.unavailable, stderr: "engram: connect ECONNREFUSED 127.0.0.1:1\n" });
  });

  const FORGED = `field=id hint=format: ${MARK}`;
  /** [label, arguments carrying a control character and a forged envelope line, the whole stderr]. */
  const forging: [string, string[], string][] = [
    ["get", ["get", `abc\n${FORGED}`], "field=id hint=format: id must not contain control characters or line breaks"],
    ["related", ["related", `abc\r\n${FORGED}`], "field=id hint=format: id must not contain control characters or line breaks"],
    ["delete", ["delete", `abc\u2028${FORGED}`], "field=id hint=format: id must not contain control characters or line breaks"],
    [
      "supersede",
      ["supersede", "--content", "c", "--scope", "s", "--source", "user-said", "--category", "decision", "--supersedes", `a1b2c3d4e5`, "--supersedes", `abc\n${FORGED}`],
      "field=supersedes hint=format: supersedes[1] must not contain control characters or line breaks",
    ],
  ];

  it.each(forging)("%s of an id holding a line break is refused by the server in one line that repeats nothing of it, exit 2", async (_label, args, line) => {
    const run = await engram(args);
    expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ exit: EXIT.usage, stderr: `${line}\n`, stdout: "" });
    expectNoEcho(run, MARK);
  });

  it("a server text holding a line break is still one stderr line, and nothing in it starts a line of its own", async () => {
    // A server that echoes the id unchecked (an older one): the CLI must not let its text span lines.
    const echoing = createServer((req, res) => {
      req.resume().on("end", () => {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: "not_found", message: `not found: abc\n${FORGED}\u2028x` }));
      });
    });
    await new Promise<void>((resolve) => echoing.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = echoing.address() as AddressInfo;
      const run = await engram(["get", "abc", "--server", `http://127.0.0.1:${port}`]);
      expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({
        exit: EXIT.not_found,
        stderr: `not found: abc\\n${FORGED}\\u2028x\n`,
        stdout: "",
      });
    } finally {
      await new Promise<void>((resolve) => echoing.close(() => resolve()));
    }
  });

  const one = "engram: MEM_QDRANT_ADDR is a retired setting that engram no longer reads; set its ENGRAM_* counterpart instead and unset it";
  /** [label, arguments, the MEM_* variables set, the whole stderr]. */
  const rows: [string, string[], Record<string, string>, string][] = [
    ["a bare engram", [], { MEM_QDRANT_ADDR: MARK }, one],
    ["version", ["version"], { MEM_QDRANT_ADDR: MARK }, one],
    ["a client verb", ["list", "--scope", "a"], { MEM_QDRANT_ADDR: MARK }, one],
    ["an operator verb", ["migrate", "status"], { MEM_QDRANT_ADDR: MARK }, one],
    ["serve", ["serve", "--listen-addr", "127.0.0.1:0"], { MEM_QDRANT_ADDR: MARK }, one],
    ["mcp", ["mcp"], { MEM_QDRANT_ADDR: MARK }, one],
    // The original's own Qdrant address, left set, would otherwise mean a fresh embedded store.
    [
      "the original's ENGRAM_QDRANT_ADDR",
      ["serve", "--listen-addr", "127.0.0.1:0"],
      { ENGRAM_QDRANT_ADDR: MARK },
      "engram: ENGRAM_QDRANT_ADDR is the original engram's Qdrant setting, which engram does not read; set ENGRAM_QDRANT_URL (http://host:6333, Qdrant's REST port) instead and unset it",
    ],
    [
      "two of them",
      ["version"],
      { MEM_TOKEN: MARK, MEM_EMBED_MODEL: MARK },
      "engram: MEM_EMBED_MODEL, MEM_TOKEN are retired settings that engram no longer reads; set their ENGRAM_* counterparts instead and unset them",
    ],
  ];

  it.each(rows)("%s refuses to run, naming the variable and never its value, exit 2", async (_label, args, env, stderr) => {
    const run = await engram(args, env);
    expect({ exit: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({ exit: EXIT.usage, stderr: `${stderr}\n`, stdout: "" });
    expectNoEcho(run, MARK);
  });

  it.each([["--version"], ["--help"]])("%s still answers, so the way out stays visible", async (flag) => {
    const run = await engram([flag], { MEM_QDRANT_ADDR: MARK });
    expect({ exit: run.code, stderr: run.stderr }).toEqual({ exit: EXIT.ok, stderr: "" });
  });
});
