/**
 * The read verbs added to close the gap with the server (list-scopes,
 * list-tags, list-scheduled, list-rules, related, search-discoveries),
 * delete-all's preview, the token hint on a 401, blank list entries, and
 * the zsh and fish completion scripts: the real binary against a real
 * server with two owners.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { DEFAULT_LIMITS, LANE_POLICY } from "../src/core/limits.js";
import { type TestServer } from "./helpers/engram-server.js";
import { portableFixture, TOKENS } from "./helpers/portable-fixture.js";
import { runEngram } from "./helpers/run-engram.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

describe("the read verbs against a real server", { timeout: 180_000 }, () => {
  let server: TestServer;
  let ids: Record<string, string>;
  let asAlice: (args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;
  let ok: (args: string[]) => Promise<Record<string, unknown>>;

  beforeAll(async () => {
    ({ server, ids } = await portableFixture());
    asAlice = (args) => runEngram(args, { ENGRAM_SERVER_URL: server.url, ENGRAM_TOKEN: TOKENS.alice });
    ok = async (args) => {
      const r = await asAlice([...args, "--output", "json"]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
  });

  afterAll(async () => {
    await server?.close();
  });

  it("list-scopes counts the scopes alice may read: her own records plus bob's shared ones", async () => {
    // repo:a holds alice's 6 records (the gate hides none from a count); bob's private note and his discovery are not hers to see.
    expect(await ok(["list-scopes"])).toEqual({
      scopes: [
        { scope: "repo:a", count: "6" },
        { scope: "repo:b", count: "1" },
        { scope: "rule:repo:a", count: "1" },
      ],
      approximate: false,
    });
  });

  it("list and search in a scope that holds nothing of hers answer empty, exit 0, and name her nearest scopes on stderr", async () => {
    const note = "engram: the scope holds no records you may read; nearest: repo:a, repo:b\n";
    const list = await asAlice(["list", "--scope", "repo:c", "--output", "json"]);
    expect({ code: list.code, memories: (JSON.parse(list.stdout) as { memories: unknown[] }).memories, stderr: list.stderr }).toEqual({ code: EXIT.ok, memories: [], stderr: note });
    const search = await asAlice(["search", "--query", "anything", "--scope", "repo:c", "--output", "json"]);
    expect({ code: search.code, stderr: search.stderr }).toEqual({ code: EXIT.ok, stderr: note });
    // Far from every scope of hers: said, with no scope named.
    expect((await asAlice(["list", "--scope", "team:platform/infra", "--output", "json"])).stderr).toBe("engram: the scope holds no records you may read\n");
    // A scope of hers says nothing more, whatever it answers.
    expect((await asAlice(["list", "--scope", "repo:a", "--output", "json"])).stderr).toBe("");
  });

  it("count answers how many records the same list would return, and refuses --scope with --cross-spine before dialing", async () => {
    const listed = (await ok(["list", "--scope", "repo:a"])) as { total: string };
    expect((await ok(["count", "--scope", "repo:a"])).count).toBe(listed.total);
    expect(await asAlice(["count", "--scope", "repo:a", "--tags", "billing", "--output", "text"])).toEqual({ code: EXIT.ok, stdout: "1\n", stderr: "" });
    const both = await asAlice(["count", "--scope", "repo:a", "--cross-spine"]);
    expect({ code: both.code, stdout: both.stdout }).toEqual({ code: EXIT.usage, stdout: "" });
  });

  it("list-tags counts tags, most used first", async () => {
    expect(await ok(["list-tags", "--scope", "repo:a"])).toEqual({ tags: [{ tag: "billing", count: "1" }, { tag: "db", count: "1" }], more: false });
    const text = await asAlice(["list-tags", "--scope", "repo:a", "--output", "text"]);
    expect(text).toEqual({ code: EXIT.ok, stdout: "TAG      COUNT\nbilling  1\ndb       1\n", stderr: "" });
  });

  it("list-scheduled lists alice's windowed record and nothing of bob's", async () => {
    const res = (await ok(["list-scheduled", "--scope", "repo:a"])) as { memories: { id: string }[]; next_page_token: string };
    expect(res.memories.map((m) => m.id)).toEqual([ids.aliceScheduled]);
    expect(res.next_page_token).toBe("");
    expect(Object.keys(res).sort()).toEqual(["memories", "next_page_token", "scopes_truncated", "scopes_unknown", "searched_scopes"]);
  });

  it("list-rules lists the rule with its summary and the advisory", async () => {
    const res = (await ok(["list-rules"])) as { rules: { id: string; summary: string; content: string }[]; advisory: string };
    expect(res.rules.map((r) => [r.id, r.summary])).toEqual([[ids.rule, "no pushes to main"]]);
    expect(res.rules[0]!.content).toBe("");
    const full = (await ok(["list-rules", "--scopes", "rule:repo:a", "--full"])) as { rules: { content: string }[] };
    expect(full.rules[0]!.content).toBe("never push to main");
  });

  it("related shows the supersession chain of a record, with its edge", async () => {
    const res = (await ok(["related", ids.aliceNew!])) as {
      anchor: { id: string };
      related: { memory: { id: string }; edges: { type: string; supersession?: { direction: string; depth: number } }[] }[];
      truncated: boolean;
    };
    expect(res.anchor.id).toBe(ids.aliceNew);
    const old = res.related.find((r) => r.memory.id === ids.aliceOld)!;
    expect(old.edges).toContainEqual({ type: "EDGE_TYPE_SUPERSESSION", supersession: { direction: "SUPERSESSION_DIRECTION_PREDECESSOR", depth: 1 } });
    const text = await asAlice(["related", ids.aliceNew!, "--output", "text"]);
    expect(text.code).toBe(EXIT.ok);
    expect(text.stdout.split("\n")[2]).toMatch(/^SHORT_ID\s+EDGES\s+SUMMARY$/);
    expect(text.stdout).toMatch(/predecessor 1/);
  });

  it("search-discoveries finds bob's discovery for bob, and not for alice", async () => {
    const bob = await runEngram(["search-discoveries", "--query", "where is the router", "--output", "json"], { ENGRAM_SERVER_URL: server.url, ENGRAM_TOKEN: TOKENS.bob });
    expect({ code: bob.code, stderr: bob.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    const res = JSON.parse(bob.stdout) as { discoveries: { id: string; kind: string }[] };
    expect(res.discoveries.map((d) => [d.id, d.kind])).toEqual([[ids.discovery, "fact"]]);
    expect(await ok(["search-discoveries", "--query", "where is the router"])).toEqual({ discoveries: [] });
    const missing = await asAlice(["search-discoveries", "--output", "json"]);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({ code: EXIT.usage, stderr: "field=query hint=required: query is required\n" });
  });

  it("delete-all without --yes deletes nothing and says what it would delete", async () => {
    const before = await ok(["list", "--scope", "repo:a", "--include-archived", "--include-superseded", "--include-scheduled"]);
    const preview = await ok(["delete-all", "--scope", "repo:a"]);
    // alicePrivate, aliceShared, aliceArchived, aliceOld, aliceNew, aliceScheduled: every state, counted by the server.
    expect(preview).toEqual({ dry_run: true, scope: "repo:a", would_delete: 6 });
    const text = await asAlice(["delete-all", "--scope", "repo:a", "--output", "text"]);
    expect(text.code).toBe(EXIT.ok);
    expect(text.stdout.split("\n")[0]).toBe("preview: delete-all would delete 6 record(s) you own in scope repo:a; nothing was deleted (run again with --yes)");
    expect(await ok(["list", "--scope", "repo:a", "--include-archived", "--include-superseded", "--include-scheduled"])).toEqual(before);

    const noScope = await asAlice(["delete-all"]);
    expect({ code: noScope.code, stderr: noScope.stderr }).toEqual({ code: EXIT.usage, stderr: "field=scope hint=required: scope is required\n" });
  });

  it("delete-all --yes deletes only the caller's own records", async () => {
    const bob = (args: string[]) => runEngram([...args, "--output", "json"], { ENGRAM_SERVER_URL: server.url, ENGRAM_TOKEN: TOKENS.bob });
    // bob's shared record in repo:b is readable by alice but not hers to delete.
    const preview = await ok(["delete-all", "--scope", "repo:b"]);
    expect(preview).toEqual({ dry_run: true, scope: "repo:b", would_delete: 0 });
    const r = await bob(["delete-all", "--scope", "repo:b", "--yes"]);
    expect({ code: r.code, stdout: JSON.parse(r.stdout), stderr: r.stderr }).toEqual({ code: EXIT.ok, stdout: { deleted: "1" }, stderr: "" });
  });

  it("a 401 says how to pass a token", async () => {
    const none = await runEngram(["list-scopes"], { ENGRAM_SERVER_URL: server.url });
    expect({ code: none.code, stderr: none.stderr }).toEqual({
      code: EXIT.auth,
      stderr: "engram: a valid bearer token is required; pass a token in ENGRAM_TOKEN, or in a file with --token-file <path>\n",
    });
    const wrong = await runEngram(["list-tags"], { ENGRAM_SERVER_URL: server.url, ENGRAM_TOKEN: "not-a-token" });
    expect({ code: wrong.code, stderr: wrong.stderr }).toEqual({
      code: EXIT.auth,
      stderr: "engram: a valid bearer token is required; the token sent was refused: check ENGRAM_TOKEN, or the file passed with --token-file <path>\n",
    });
  });

  it("a blank entry in --tags reaches the core and is rejected, exit 2; --tags \"\" still clears on update", async () => {
    const r = await asAlice(["store", "--content", "x", "--scope", "repo:t", "--source", "user-said", "--category", "decision", "--tags", "a,,b"]);
    expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
      code: EXIT.usage,
      stderr: "field=tags hint=required: tags entries must not be blank\n",
      stdout: "",
    });
    const cleared = await asAlice(["update", ids.alicePrivate!, "--tags", "", "--output", "json"]);
    expect({ code: cleared.code, stderr: cleared.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    const got = (await ok(["get", ids.alicePrivate!])) as { memory: { tags: string[] } };
    expect(got.memory.tags).toEqual([]);
  });
});

describe("zsh and fish completion", { timeout: 60_000 }, () => {
  it("print scripts naming every verb and every flag of the command tree", async () => {
    const catalog = JSON.parse((await runEngram([])).stdout) as { commands: { name: string; flags: { name: string }[] }[] };
    const [zsh, fish] = await Promise.all([runEngram(["completion", "zsh"]), runEngram(["completion", "fish"])]);
    expect(zsh.code).toBe(EXIT.ok);
    expect(fish.code).toBe(EXIT.ok);
    expect(zsh.stdout.split("\n")[0]).toBe("#compdef engram");
    expect(zsh.stdout).toContain("compdef _engram engram");
    expect(fish.stdout).toContain("complete -c engram -f");
    for (const c of catalog.commands) {
      const leaf = c.name.split(" ").pop()!;
      expect(zsh.stdout, `zsh ${c.name}`).toContain(`'${leaf}:`);
      expect(fish.stdout, `fish ${c.name}`).toContain(`-a '${leaf}'`);
      for (const f of c.flags) {
        expect(zsh.stdout, `zsh ${c.name} ${f.name}`).toContain(f.name);
        expect(fish.stdout, `fish ${c.name} ${f.name}`).toContain(`-l ${f.name.replace(/^--/, "")}`);
      }
    }
    // A flag with fixed values completes those values in both shells.
    expect(zsh.stdout).toContain("--output) compadd -- 'json' 'text'; return 0 ;;");
    expect(fish.stdout).toMatch(/-l output -x -a 'json text'/);
  });
});

describe("the defaults a client verb's help names", () => {
  const CONNECT = LANE_POLICY.connect;
  /** [verb, flag, the default the server applies to a Connect request that sends 0]. */
  const rows: [string, string, string][] = [
    ["search", "--k", `(${CONNECT.searchK})`],
    ["search-discoveries", "--k", `(${CONNECT.discoveryK})`],
    ["related", "--k", `(${DEFAULT_LIMITS.relatedDefaultK})`],
    ["list-tags", "--limit", `(${DEFAULT_LIMITS.listTagsDefaultLimit})`],
    ["list-scheduled", "--limit", `(${CONNECT.listLimitCursor})`],
    ["list", "--limit", `(the whole maximum of ${DEFAULT_LIMITS.maxRecall} with offset paging, ${CONNECT.listLimitCursor} with cursor paging)`],
  ];

  it.each(rows)("%s %s names the core's own default", async (verb, flag, shown) => {
    const run = await runEngram(["help", verb]);
    expect(run.code).toBe(EXIT.ok);
    const help = run.stdout.replace(/\s+/g, " ");
    expect(help).toMatch(new RegExp(`${flag} <uint> .*0 means the server default`));
    expect(help).toContain(`0 means the server default ${shown}`);
  });

  it("are read from the core's table, never written into a lane's source", () => {
    // The client verbs and the console pages hold no default of their own: a literal there would drift from src/core/limits.ts.
    const files = ["src/cli/verbs-recall.ts", "src/cli/verbs-read.ts", ...readdirSync(join(ROOT, "src/ui/pages")).map((f) => `src/ui/pages/${f}`)];
    const literals = files.flatMap((f) =>
      readFileSync(join(ROOT, f), "utf8")
        .split("\n")
        .filter((l) => /server default \(\d|default \d|placeholder: "\d+"/.test(l))
        .map((l) => `${f}: ${l.trim()}`),
    );
    expect(literals).toEqual([]);
  });
});
