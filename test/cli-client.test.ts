/**
 * Client verbs end to end: the real `engram` binary as a child process
 * against a real server in this process.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { EXIT } from "../src/argerror/index.js";
import { parseDurationMs } from "../src/cli-kit/index.js";
import { memoryTable, recordView } from "../src/cli/text.js";
import { MemorySchema } from "../src/gen/engram/v1/engram_pb.js";
import { EMPTY_SCOPE_NOTE } from "./helpers/empty-scope-note.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { runEngram } from "./helpers/run-engram.js";

type JsonMemory = Record<string, unknown> & { id: string; short_id: string };

const RECORD = ["--source", "user-said", "--category", "convention"];

// Several tests run a handful of child processes each; give them room on a loaded machine.
describe("engram client verbs against a real server", { timeout: 180_000 }, () => {
  let server: TestServer;
  /** Runs a verb against the server and insists it succeeded. */
  let ok: (args: string[]) => Promise<string>;

  beforeAll(async () => {
    server = await startTestServer();
    ok = async (args) => {
      const r = await runEngram(args, { ENGRAM_SERVER_URL: server.url });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
      return r.stdout;
    };
  });

  afterAll(async () => {
    await server?.close();
  });

  it("stores a record and gets it back with the same fields", async () => {
    const stored = JSON.parse(
      await ok([
        "store",
        "--content",
        "The release build uses pnpm, never npm.\nSecond line of detail.",
        "--scope",
        "repo:example/app",
        "--source",
        "user-said",
        "--category",
        "convention",
        "--tags",
        "build,pnpm",
        "--tags",
        "release",
        "--summary",
        "release builds use pnpm",
        "--repo",
        "example/app",
      ]),
    ) as { id: string; short_id: string };
    expect(stored.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(stored.short_id).toMatch(/^[0-9A-Z]{10}$/);

    for (const ref of [stored.id, stored.short_id]) {
      const got = JSON.parse(await ok(["get", ref])) as { memory: JsonMemory };
      expect(got.memory).toMatchObject({
        id: stored.id,
        short_id: stored.short_id,
        content: "The release build uses pnpm, never npm.\nSecond line of detail.",
        scope: "repo:example/app",
        source: "user-said",
        category: "convention",
        tags: ["build", "pnpm", "release"],
        summary: "release builds use pnpm",
        repo: "example/app",
        base_dir: "",
      });
    }
  });

  it("search finds the stored record by its words", async () => {
    const { short_id } = JSON.parse(
      await ok([
        "store",
        "--content",
        "Flaky integration tests come from the shared sqlite file; give each worker its own directory.",
        "--scope",
        "repo:example/search",
        "--source",
        "agent-inferred",
        "--category",
        "gotcha",
      ]),
    ) as { short_id: string };
    const res = JSON.parse(await ok(["search", "--query", "flaky sqlite tests", "--scope", "repo:example/search"])) as {
      memories: JsonMemory[];
    };
    expect(res.memories.map((m) => m.short_id)).toContain(short_id);
    expect(res.memories[0]!.short_id).toBe(short_id);
  });

  it("list of an empty scope renders an empty memories array in the one JSON document, exit 0, and says on stderr the scope holds nothing", async () => {
    const run = await runEngram(["list", "--scope", "repo:example/nothing-here"], { ENGRAM_SERVER_URL: server.url });
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr).toMatch(EMPTY_SCOPE_NOTE);
    const stdout = run.stdout;
    expect(stdout).toContain('"memories": []');
    const doc = JSON.parse(stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ memories: [], total: "0", next_page_token: "", searched_scopes: [] });
    expect(doc.recall_gate_hidden).toEqual({ total: "0", archived: "0", superseded: "0", expired: "0", scheduled: "0" });
  });

  it("prints a text table with the documented header for list and search", async () => {
    await ok(["store", "--content", "Use tabs.", "--scope", "repo:example/text", "--source", "user-said", "--category", "preference"]);
    const list = (await ok(["list", "--scope", "repo:example/text", "--output", "text"])).split("\n");
    expect(list[0]).toMatch(/^SHORT_ID {2,}SCOPE {2,}CATEGORY {2,}SUMMARY$/);
    expect(list[1]).toMatch(/^[0-9A-Z]{10} {2,}repo:example\/text {2,}preference {2,}Use tabs\.$/);

    const search = (await ok(["search", "--query", "tabs", "--scope", "repo:example/text", "--output", "text"])).split("\n");
    expect(search[0]).toMatch(/^SHORT_ID {2,}SCOPE {2,}CATEGORY {2,}SCORE {2,}SUMMARY$/);
    expect(search[1]).toMatch(/ \d+\.\d{4} {2,}Use tabs\.$/);
  });

  it("cuts a long summary to 80 characters and an ellipsis in the text table", async () => {
    const long = "a".repeat(120);
    await ok(["store", "--content", long, "--summary", long, "--scope", "repo:example/long", "--source", "user-said", "--category", "gotcha"]);
    const rows = (await ok(["list", "--scope", "repo:example/long", "--output", "text"])).split("\n");
    expect(rows[1]!.endsWith(" " + "a".repeat(80) + "…")).toBe(true);
  });

  it("ends a cross-spine text listing with the searched_scopes footer", async () => {
    const lines = (await ok(["list", "--cross-spine", "--output", "text"])).trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(/^searched_scopes: [1-9]\d*$/);
  });

  it("get in text shows the record headline and its fields", async () => {
    const { short_id, id } = JSON.parse(
      await ok(["store", "--content", "Pin node 20.", "--scope", "repo:example/get", "--source", "user-said", "--category", "decision"]),
    ) as { id: string; short_id: string };
    const lines = (await ok(["get", short_id, "--output", "text"])).split("\n");
    expect(lines[0]).toBe(`record ${short_id}`);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^id +${id}$`)));
    expect(lines).toContainEqual(expect.stringMatching(/^content +Pin node 20\.$/));
  });

  it("update sends only the flagged fields and delete removes the record", async () => {
    const { short_id } = JSON.parse(
      await ok(["store", "--content", "Old text.", "--scope", "repo:example/upd", "--source", "user-said", "--category", "decision", "--tags", "keep"]),
    ) as { short_id: string };
    await ok(["update", short_id, "--summary", "new summary", "--shared"]);
    const got = (JSON.parse(await ok(["get", short_id])) as { memory: JsonMemory }).memory;
    expect(got).toMatchObject({ summary: "new summary", visibility: "shared", content: "Old text.", tags: ["keep"] });

    await ok(["update", short_id, "--tags", ""]);
    expect((JSON.parse(await ok(["get", short_id])) as { memory: JsonMemory }).memory.tags).toEqual([]);

    expect(await ok(["delete", short_id])).toBe("{}\n");
    const other = JSON.parse(await ok(["store", "--content", "Gone soon.", "--scope", "repo:example/upd", "--source", "user-said", "--category", "decision"])) as { id: string; short_id: string };
    expect(await ok(["delete", other.short_id, "--output", "text"])).toBe(`deleted ${other.id}\n`);
    const gone = await runEngram(["get", short_id], { ENGRAM_SERVER_URL: server.url });
    expect(gone.code).toBe(EXIT.not_found);
    expect(gone.stderr).toBe(`not found: ${short_id}\n`);
  });

  it("sends the bearer token from ENGRAM_TOKEN to a server that requires one", async () => {
    const authed = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: "alice=tok-a" } });
    try {
      const r = await runEngram(["store", "--content", "mine", "--scope", "s", "--source", "user-said", "--category", "gotcha"], {
        ENGRAM_SERVER_URL: authed.url,
        ENGRAM_TOKEN: "tok-a",
      });
      expect(r.code).toBe(EXIT.ok);
      const { short_id } = JSON.parse(r.stdout) as { short_id: string };
      const got = await runEngram(["get", short_id], { ENGRAM_SERVER_URL: authed.url, ENGRAM_TOKEN: "tok-a" });
      expect((JSON.parse(got.stdout) as { memory: JsonMemory }).memory.owner).toBe("alice");
    } finally {
      await authed.close();
    }
  });

  it("schedule stores a record that list shows only with --include-scheduled", async () => {
    const scope = "repo:example/sched";
    const { short_id } = JSON.parse(
      await ok(["schedule", "--content", "Rotate the keys.", "--scope", scope, ...RECORD, "--not-before", "2099-01-01T00:00:00Z"]),
    ) as { short_id: string };
    const hidden = JSON.parse(await ok(["list", "--scope", scope])) as { memories: JsonMemory[]; recall_gate_hidden: { scheduled: string } };
    expect(hidden.memories).toEqual([]);
    expect(hidden.recall_gate_hidden.scheduled).toBe("1");

    const shown = JSON.parse(await ok(["list", "--scope", scope, "--include-scheduled", "--full"])) as { memories: JsonMemory[] };
    expect(shown.memories.map((m) => m.short_id)).toEqual([short_id]);
    expect(shown.memories[0]!.not_before).toBe("2099-01-01T00:00:00Z");

    const text = (await ok(["list", "--scope", scope, "--include-scheduled", "--full", "--output", "text"])).split("\n");
    expect(text[0]).toMatch(/^SHORT_ID +SCOPE +CATEGORY +STATE +SUMMARY$/);
    expect(text[1]).toMatch(new RegExp(`^${short_id} +${scope} +convention +scheduled +Rotate the keys\\.$`));
  });

  it("supersede --validate-only reports the resolved targets and writes nothing, then supersede replaces them", async () => {
    const scope = "repo:example/sup";
    const old = JSON.parse(await ok(["store", "--content", "Deploy on Fridays.", "--scope", scope, ...RECORD])) as { id: string; short_id: string };

    const plan = JSON.parse(
      await ok(["supersede", "--content", "Never deploy on Fridays.", "--scope", scope, ...RECORD, "--supersedes", old.short_id, "--validate-only"]),
    ) as { validated: boolean; id: string; supersedes: string[]; targets: JsonMemory[] };
    expect(plan).toMatchObject({ validated: true, id: "", supersedes: [old.id] });
    expect(plan.targets.map((t) => t.id)).toEqual([old.id]);
    const untouched = (JSON.parse(await ok(["get", old.short_id])) as { memory: JsonMemory }).memory;
    expect(untouched.superseded_by).toBeUndefined();

    const done = JSON.parse(
      await ok(["supersede", "--content", "Never deploy on Fridays.", "--scope", scope, ...RECORD, "--supersedes", old.short_id]),
    ) as { id: string; validated: boolean };
    expect(done.validated).toBe(false);
    const after = (JSON.parse(await ok(["get", old.short_id])) as { memory: JsonMemory }).memory;
    expect(after.superseded_by).toBe(done.id);
    expect((await ok(["get", old.short_id, "--output", "text"])).split("\n")[0]).toBe(`record ${old.short_id} (superseded)`);

    const listed = JSON.parse(await ok(["list", "--scope", scope])) as { memories: JsonMemory[] };
    expect(listed.memories.map((m) => m.id)).toEqual([done.id]);
  });

  it("archive and restore report one outcome per id, in order, including not_found", async () => {
    const { id, short_id } = JSON.parse(
      await ok(["store", "--content", "Old runbook.", "--scope", "repo:example/arch", ...RECORD]),
    ) as { id: string; short_id: string };

    const archived = JSON.parse(await ok(["archive", short_id, "ZZZZZZZZZZ", short_id])) as { results: Record<string, unknown>[] };
    expect(archived.results).toEqual([
      { requested: short_id, id, outcome: "ARCHIVE_OUTCOME_ARCHIVED" },
      { requested: "ZZZZZZZZZZ", id: "", outcome: "ARCHIVE_OUTCOME_NOT_FOUND" },
      { requested: short_id, id, outcome: "ARCHIVE_OUTCOME_ALREADY_ARCHIVED" },
    ]);
    expect((JSON.parse(await ok(["list", "--scope", "repo:example/arch"])) as { memories: unknown[] }).memories).toEqual([]);

    const restored = (await ok(["restore", short_id, "--output", "text"])).split("\n");
    expect(restored[0]).toMatch(/^REQUESTED +ID +OUTCOME$/);
    expect(restored[1]).toMatch(new RegExp(`^${short_id} +${id} +restored$`));
    expect((JSON.parse(await ok(["list", "--scope", "repo:example/arch"])) as { memories: JsonMemory[] }).memories.map((m) => m.id)).toEqual([id]);
  });

  it("writes one table row per id even when an id holds a line break, which no text a caller sends can split", async () => {
    const lines = (await ok(["archive", "ABC\nfield=id hint=format: forged", "--output", "text"])).trimEnd().split("\n");
    expect(lines).toEqual([expect.stringMatching(/^REQUESTED +ID +OUTCOME$/), expect.stringMatching(/^ABC\\nfield=id hint=format: forged +- +not_found$/)]);
  });

  it("store-discovery, store-rule and delete-all do from the CLI what the MCP tools do", async () => {
    const cite = JSON.stringify({ kind: "file", ref: "src/parser.ts", locator: "1-9" });
    const d = JSON.parse(
      await ok(["store-discovery", "--content", "The parser lives in src/parser.ts.", "--kind", "map", "--scope", "discovery:repo:example/cli", "--citation", cite]),
    ) as { id: string };
    expect((JSON.parse(await ok(["get", d.id])) as { memory: JsonMemory & { category: string } }).memory.category).toBe("discovery");
    const r = JSON.parse(
      await ok(["store-rule", "--content", "Run the linter before pushing.", "--scope", "rule:repo:example/cli", "--summary", "lint before push"]),
    ) as { id: string };
    expect((JSON.parse(await ok(["get", r.id])) as { memory: { visibility: string } }).memory.visibility).toBe("shared");
    const bad = await runEngram(["store-rule", "--content", "x", "--scope", "repo:x", "--summary", "s"], { ENGRAM_SERVER_URL: server.url });
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr.trim()).toBe("field=scope hint=prefix: scope must be rule:repo:<repo> or rule:project:<project>");

    for (const c of ["one", "two"]) await ok(["store", "--content", c, "--scope", "repo:example/teardown", ...RECORD]);
    expect(JSON.parse(await ok(["delete-all", "--scope", "repo:example/teardown", "--yes"]))).toEqual({ deleted: "2" });
    const emptied = await runEngram(["list", "--scope", "repo:example/teardown"], { ENGRAM_SERVER_URL: server.url });
    expect({ code: emptied.code, memories: (JSON.parse(emptied.stdout) as { memories: unknown[] }).memories }).toEqual({ code: EXIT.ok, memories: [] });
    const noScope = await runEngram(["delete-all"], { ENGRAM_SERVER_URL: server.url });
    expect(noScope.code).toBe(EXIT.usage);
    expect(noScope.stderr.trim()).toBe("field=scope hint=required: scope is required");
  });

  it("migration-status reports the schema-version histogram in json and text", async () => {
    const status = JSON.parse(await ok(["migration-status"])) as Record<string, unknown>;
    expect(Object.keys(status).sort()).toEqual(["absent", "buckets", "current_version", "future", "future_total", "pending", "total"]);
    expect(status.pending).toBe("0");
    const text = await ok(["migration-status", "--output", "text"]);
    expect(text).toMatch(new RegExp(`^current_version +${String(status.current_version)}$`, "m"));
    expect(text).toMatch(/^VERSION +COUNT$/m);
  });
});

describe("text views and durations, in process", () => {
  const now = new Date("2030-01-01T00:00:00Z");
  const at = (iso: string) => timestampFromDate(new Date(iso));
  const live = create(MemorySchema, { shortId: "AAAAAAAAAA", scope: "s", category: "gotcha", summary: "live one" });
  const gone = create(MemorySchema, {
    shortId: "BBBBBBBBBB",
    scope: "s",
    category: "decision",
    content: "first line\nsecond line",
    archivedAt: at("2029-12-01T00:00:00Z"),
    supersededBy: "c0ffee00-0000-4000-8000-000000000000",
    notBefore: at("2030-02-01T00:00:00Z"),
  });

  it("adds a STATE column only when some row is archived, superseded, expired or scheduled", () => {
    expect(memoryTable([live], { score: false, now }).split("\n")[0]).toBe("SHORT_ID    SCOPE  CATEGORY  SUMMARY");
    const lines = memoryTable([live, gone], { score: false, now }).split("\n");
    expect(lines[0]).toMatch(/^SHORT_ID +SCOPE +CATEGORY +STATE +SUMMARY$/);
    expect(lines[2]).toMatch(/^BBBBBBBBBB +s +decision +archived,superseded,scheduled +first line$/);
  });

  it("names an expired record's state once its not_after has passed", () => {
    const expired = create(MemorySchema, { shortId: "CCCCCCCCCC", notAfter: at("2029-06-01T00:00:00Z") });
    expect(recordView(expired, now).split("\n")[0]).toBe("record CCCCCCCCCC (expired)");
    expect(recordView(gone, now).split("\n")[0]).toBe("record BBBBBBBBBB (archived, superseded, scheduled)");
  });

  it("reads durations with units and refuses bare numbers", () => {
    expect(parseDurationMs("500ms")).toBe(500);
    expect(parseDurationMs("30s")).toBe(30_000);
    expect(parseDurationMs("2m")).toBe(120_000);
    expect(parseDurationMs("1m30s")).toBe(90_000);
    expect(parseDurationMs("1.5h")).toBe(5_400_000);
    expect(parseDurationMs("-5s")).toBe(-5_000);
    expect(parseDurationMs("0s")).toBe(0);
    for (const bad of ["30", "", "s", "5 s", "5d", "soon", "1m30"]) expect(parseDurationMs(bad), bad).toBeUndefined();
  });
});
