/**
 * The MCP tool lane's calls over an in-memory transport: every call is shaped
 * the same way (structured result plus a text mirror, or the envelope as the
 * only text), whether it succeeds, is refused or fails inside, and it sees
 * only its session owner's records. What the lane advertises is
 * mcp-tools-surface.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ANONYMOUS, LANE_POLICY, ownerSubject } from "../src/core/index.js";
import { TOOL_NAMES } from "../src/mcp/index.js";
import { stdioSubject } from "../src/auth/index.js";
import { inMemoryMcp, memory, texts, type InMemoryMcp } from "./fixtures/mcp-harness.js";

describe("tool results", () => {
  let mcp: InMemoryMcp;
  beforeAll(async () => {
    mcp = await inMemoryMcp();
  });
  afterAll(async () => mcp.close());

  it("answers a success with structuredContent, the human line and a JSON mirror of it", async () => {
    const r = await mcp.call("store_memory", memory());
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent as { id: string; short_id: string };
    expect(Object.keys(s).sort()).toEqual(["id", "short_id"]);
    expect(s.short_id).toMatch(/^[0-9A-Z]{10}$/);
    expect(texts(r)).toEqual([`stored ${s.id}`, JSON.stringify(s)]);
  });

  it("answers get_memory with the content as the text line and the full record as the structured result", async () => {
    const stored = (await mcp.call("store_memory", memory({ content: "Use pnpm in the web package.", tags: ["web"] })))
      .structuredContent as { id: string; short_id: string };
    for (const id of [stored.id, stored.short_id, stored.short_id.toLowerCase()]) {
      const r = await mcp.call("get_memory", { id });
      expect(r.isError, id).toBeFalsy();
      const m = r.structuredContent as Record<string, unknown>;
      expect(m).toMatchObject({ id: stored.id, short_id: stored.short_id, content: "Use pnpm in the web package.", tags: ["web"] });
      expect(texts(r)[0]).toBe("Use pnpm in the web package.");
      expect(JSON.parse(texts(r)[1]!)).toEqual(m);
    }
  });

  it("shapes search, list, update, set_visibility and delete as the reference's lines", async () => {
    const a = (await mcp.call("store_memory", memory({ scope: "project:shapes", content: "alpha bravo charlie" })))
      .structuredContent as { id: string; short_id: string };

    const search = await mcp.call("search_memory", { query: "bravo", scope: "project:shapes" });
    expect(texts(search)[0]).toBe("1 hits");
    const found = search.structuredContent as { memories: { id: string }[] };
    expect(Object.keys(found)).toEqual(["memories"]);
    expect(found.memories.map((m) => m.id)).toEqual([a.id]);

    const list = await mcp.call("list_memory", { scope: "project:shapes" });
    expect(texts(list)[0]).toBe("1 memories");
    expect(Object.keys(list.structuredContent!).sort()).toEqual(["memories", "next_cursor"]);
    expect((list.structuredContent as { next_cursor: string }).next_cursor).toBe("");

    const upd = await mcp.call("update_memory", { id: a.short_id, content: "alpha bravo delta" });
    expect(texts(upd)).toEqual(["updated", JSON.stringify({ id: a.id, short_id: a.short_id })]);

    const vis = await mcp.call("set_visibility", { id: a.id, shared: true });
    expect(texts(vis)).toEqual(["visibility updated", JSON.stringify({ id: a.id, short_id: a.short_id })]);
    expect((await mcp.call("get_memory", { id: a.id })).structuredContent).toMatchObject({
      content: "alpha bravo delta",
      visibility: "shared",
    });

    const del = await mcp.call("delete_memory", { id: a.id });
    expect(texts(del)).toEqual(["deleted", "{}"]);
    expect(del.structuredContent).toEqual({});
  });

  it("adds coverage keys to search and list only on cross-spine calls", async () => {
    await mcp.call("store_memory", memory({ scope: "project:cov-a", content: "coverage probe one" }));
    await mcp.call("store_memory", memory({ scope: "project:cov-b", content: "coverage probe two" }));

    const scoped = await mcp.call("search_memory", { query: "coverage probe", scope: "project:cov-a" });
    expect(Object.keys(scoped.structuredContent!)).toEqual(["memories"]);
    const scopedList = await mcp.call("list_memory", { scope: "project:cov-a" });
    expect(Object.keys(scopedList.structuredContent!).sort()).toEqual(["memories", "next_cursor"]);

    const wide = await mcp.call("search_memory", { query: "coverage probe", cross_spine: true, scope: "ignored" });
    const w = wide.structuredContent as { memories: unknown[]; searched_scopes: string[]; scopes_truncated: boolean };
    expect(w.searched_scopes).toEqual(expect.arrayContaining(["project:cov-a", "project:cov-b"]));
    expect(w.scopes_truncated).toBe(false);
    const wideList = await mcp.call("list_memory", { cross_spine: true });
    expect(Object.keys(wideList.structuredContent!).sort()).toEqual(["memories", "next_cursor", "scopes_truncated", "searched_scopes"]);
  });

  it("applies the MCP defaults: search k 8 and list limit 20", async () => {
    for (let i = 0; i < 25; i++) {
      await mcp.call("store_memory", memory({ scope: "project:defaults", content: `default probe number ${i}` }));
    }
    const s = await mcp.call("search_memory", { query: "default probe", scope: "project:defaults" });
    expect((s.structuredContent as { memories: unknown[] }).memories).toHaveLength(LANE_POLICY.mcp.searchK);
    const l = await mcp.call("list_memory", { scope: "project:defaults" });
    expect((l.structuredContent as { memories: unknown[] }).memories).toHaveLength(LANE_POLICY.mcp.listLimitCursor);
  });

  it("pages list_memory by cursor: next_cursor resumes where the page ended", async () => {
    for (const c of ["page one", "page two", "page three"]) {
      await mcp.call("store_memory", memory({ scope: "project:pages", content: c }));
    }
    const first = (await mcp.call("list_memory", { scope: "project:pages", limit: 2 })).structuredContent as {
      memories: { id: string }[];
      next_cursor: string;
    };
    expect(first.memories).toHaveLength(2);
    expect(first.next_cursor).not.toBe("");
    const second = (await mcp.call("list_memory", { scope: "project:pages", limit: 2, cursor: first.next_cursor }))
      .structuredContent as { memories: { id: string }[]; next_cursor: string };
    expect(second.memories).toHaveLength(1);
    expect(second.next_cursor).toBe("");
    const ids = [...first.memories, ...second.memories].map((m) => m.id);
    expect(new Set(ids).size).toBe(3);
  });

  it("refuses arguments this lane does not offer, such as offset paging, instead of dropping them", async () => {
    await mcp.call("store_memory", memory({ scope: "project:hidden", content: "hidden knob one" }));
    const r = await mcp.call("list_memory", { scope: "project:hidden", limit: 1, offset: 5, cursor_mode: true });
    expect(r.isError).toBe(true);
    expect(texts(r)).toEqual(["field=offset hint=not_applicable: offset is not an argument of list_memory"]);
  });

  it("names the MCP cursor in the envelope of a cursor it did not issue", async () => {
    const r = await mcp.call("list_memory", { scope: "project:pages", cursor: "not-a-cursor" });
    expect(r.isError).toBe(true);
    expect(texts(r)).toEqual(["field=cursor hint=format: cursor is not a cursor this server issued"]);
  });

  it("refuses a cursor in the issued shape whose time or ids could not have been issued", async () => {
    for (const forged of [{ c: "zzqx", seen: [] }, { c: "2026-01-01T00:00:00Z", seen: [" "] }]) {
      const r = await mcp.call("list_memory", { scope: "project:pages", cursor: Buffer.from(JSON.stringify(forged)).toString("base64url") });
      expect(r.isError).toBe(true);
      expect(texts(r)).toEqual(["field=cursor hint=format: cursor is not a cursor this server issued"]);
    }
  });
});

describe("curation, discovery and rule tools", () => {
  let mcp: InMemoryMcp;
  beforeAll(async () => {
    mcp = await inMemoryMcp();
  });
  afterAll(async () => mcp.close());

  const ok = async (name: string, args: Record<string, unknown>) => {
    const r = await mcp.call(name, args);
    if (r.isError) throw new Error(`${name}: ${texts(r).join(" | ")}`);
    expect(JSON.parse(texts(r)[1]!), name).toEqual(r.structuredContent);
    return { line: texts(r)[0]!, s: r.structuredContent as Record<string, any> };
  };

  it("schedules a memory that list_scheduled shows and search does not", async () => {
    const later = new Date(Date.now() + 3600_000).toISOString();
    const { line, s } = await ok("schedule_memory", memory({ scope: "project:sched", content: "remind about the freeze", not_before: later }));
    expect(line).toBe(`scheduled ${s.id}`);
    expect(Object.keys(s).sort()).toEqual(["id", "short_id"]);
    const listed = await ok("list_scheduled", { scope: "project:sched" });
    expect(listed.line).toBe("1 scheduled");
    expect(Object.keys(listed.s).sort()).toEqual(["memories", "next_cursor"]);
    expect(listed.s.memories[0]).toMatchObject({ id: s.id, content: "remind about the freeze" });
    expect((await ok("search_memory", { query: "freeze", scope: "project:sched" })).line).toBe("0 hits");
    const wide = await ok("list_scheduled", { cross_spine: true, state: "all" });
    expect(wide.s.searched_scopes).toContain("project:sched");
  });

  it("stores and recalls a discovery with its citations", async () => {
    const cite = { kind: "file", ref: "src/server.ts", locator: "1-40", pin: "abc123", excerpt: "one listener" };
    const { line, s } = await ok("store_discovery", {
      content: "The server sniffs the HTTP/2 preface to share one port.",
      kind: "fact",
      scope: "discovery:repo:engram",
      citations: [cite],
    });
    expect(line).toBe(`stored ${s.id}`);
    const found = await ok("search_discovery", { query: "HTTP/2 preface port", scope: "discovery:repo:engram" });
    expect(found.line).toBe("1 hits");
    expect(Object.keys(found.s)).toEqual(["discoveries"]);
    expect(found.s.discoveries[0]).toMatchObject({ id: s.id, kind: "fact", category: "discovery", source: "agent-inferred", citations: [cite] });
    const wide = await ok("search_discovery", { query: "preface", cross_spine: true });
    expect(wide.s.searched_scopes).toEqual(["discovery:repo:engram"]);
  });

  it("supersedes after a dry run, with the reference's text lines", async () => {
    const old = (await ok("store_memory", memory({ scope: "project:sup", content: "We deploy on Fridays." }))).s;
    const dry = await ok("supersede_memory", memory({ scope: "project:sup", content: "We never deploy on Fridays.", supersedes: [old.short_id], validate_only: true }));
    expect(dry.line).toBe(`validated, superseding ${old.short_id}`);
    expect(dry.s).toMatchObject({ validated: true, supersedes: [old.id], targets: [{ id: old.id }] });
    const real = await ok("supersede_memory", memory({ scope: "project:sup", content: "We never deploy on Fridays.", supersedes: [old.short_id] }));
    expect(real.line).toBe(`stored ${real.s.id}, superseding ${old.short_id}`);
    expect(Object.keys(real.s).sort()).toEqual(["id", "short_id"]);
    expect((await ok("get_memory", { id: old.id })).s.superseded_by).toBe(real.s.id);
    const again = await mcp.call("supersede_memory", memory({ scope: "project:sup", content: "x", supersedes: [old.id] }));
    expect(texts(again)).toEqual([`target is already superseded: ${old.id}`]);
  });

  it("stores a rule and lists the rule set, compact by default", async () => {
    const { line, s } = await ok("store_rule", { content: "Run tsc before every commit.", scope: "rule:repo:engram", summary: "tsc before commit" });
    expect(line).toBe(`stored rule ${s.id}`);
    const listed = await ok("list_rules", { scopes: ["rule:repo:engram"] });
    expect(listed.line).toBe("1 rules");
    expect(Object.keys(listed.s)).toEqual(["rules"]);
    expect(Object.keys(listed.s.rules[0]).sort()).toEqual(["created_at", "id", "scope", "short_id", "summary", "tags"]);
    const all = await ok("list_rules", {});
    expect(all.s.searched_scopes).toEqual(["rule:repo:engram"]);
    const priv = await mcp.call("set_visibility", { id: s.id, shared: false });
    expect(texts(priv)).toEqual(["rules are always shared — delete the rule instead of changing its visibility"]);
  });

  it("archives and restores with one outcome per id sent, a not_found row carrying no id", async () => {
    const a = (await ok("store_memory", memory({ scope: "project:arch", content: "archive me" }))).s;
    const arch = await ok("archive_memory", { ids: [a.short_id, "NoSuchShrt", a.id] });
    expect(arch.line).toBe("archived 1, not_found 1, already_archived 1");
    expect(arch.s.results).toEqual([
      { requested: a.short_id, id: a.id, outcome: "archived" },
      { requested: "NoSuchShrt", outcome: "not_found" },
      { requested: a.id, id: a.id, outcome: "already_archived" },
    ]);
    expect((await ok("list_memory", { scope: "project:arch" })).line).toBe("0 memories");
    const rest = await ok("restore_memory", { ids: [a.id, a.id] });
    expect(rest.line).toBe("restored 1, not_archived 1");
    expect((await ok("list_memory", { scope: "project:arch" })).line).toBe("1 memories");
  });

  it("shows a memory's neighbourhood and the tag counts", async () => {
    const a = (await ok("store_memory", memory({ scope: "project:rel", content: "sqlite wal mode settings", tags: ["sqlite", "rare-tag"] }))).s;
    await ok("store_memory", memory({ scope: "project:rel", content: "sqlite busy timeout", tags: ["sqlite", "rare-tag"] }));
    const rel = await ok("related_memories", { id: a.short_id });
    expect(Object.keys(rel.s).sort()).toEqual(["anchor", "related", "truncated"]);
    expect(rel.s.anchor.id).toBe(a.id);
    expect(rel.line).toBe(`${rel.s.related.length} related`);
    expect(rel.s.related.length).toBeGreaterThan(0);
    for (const r of rel.s.related) for (const e of r.edges) expect(["supersession", "citation", "tag", "vector"]).toContain(e.type);
    const tags = await ok("list_tags", { scope: "project:rel", limit: 1 });
    expect(tags.s).toEqual({ tags: [{ tag: "rare-tag", count: 2 }], more: true });
    expect(tags.line).toBe("1 tags");
  });

  it("clears only the caller's own records in a scope", async () => {
    await ok("store_memory", memory({ scope: "project:clear", content: "one" }));
    await ok("store_memory", memory({ scope: "project:clear", content: "two" }));
    const { line, s } = await ok("delete_all", { scope: "project:clear" });
    expect(line).toBe("scope cleared");
    expect(s).toEqual({ deleted: 2 });
    expect((await ok("list_memory", { scope: "project:clear" })).line).toBe("0 memories");
  });
});

describe("rejections", () => {
  let mcp: InMemoryMcp;
  beforeAll(async () => {
    mcp = await inMemoryMcp();
  });
  afterAll(async () => mcp.close());

  const tags129 = Array.from({ length: 129 }, (_, i) => `t${i}`);

  it("answers a store_memory with 129 tags with exactly the too_many envelope and no structuredContent", async () => {
    const r = await mcp.call("store_memory", memory({ tags: tags129 }));
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: "text", text: "field=tags hint=too_many: too many tags: 129 (max 128)" }]);
    expect("structuredContent" in r).toBe(false);
  });

  const rejected: [string, Record<string, unknown>, string][] = [
    ["store_memory", memory({ tags: tags129 }), "field=tags hint=too_many: too many tags: 129 (max 128)"],
    ["store_memory", memory({ summary: "s".repeat(700) }), "field=summary hint=too_long: summary must be at most 512 bytes (got 700)"],
    ["store_memory", memory({ content: undefined }), "field=content hint=required: content is required"],
    ["store_memories", {}, "field=memories hint=required: memories is required"],
    ["store_memories", { memories: Array.from({ length: 257 }, () => memory()) }, "field=memories hint=out_of_range: memories exceeds the maximum of 256"],
    ["store_memories", { memories: [memory(), "x"] }, "field=memories hint=format: memories must be a list of objects"],
    ["search_memory", { scope: "project:x" }, "field=query hint=required: query is required"],
    ["search_memory", { query: "q", scope: "project:x", k: 1001 }, "field=k hint=out_of_range: k exceeds the maximum of 1000"],
    ["search_memory", { query: "q" }, "field=scope,cross_spine hint=conditional_required: scope is required unless cross_spine is true"],
    ["list_memory", { scope: "project:x", limit: 1001 }, "field=limit hint=out_of_range: limit exceeds the maximum of 1000"],
    ["list_memory", {}, "field=scope,cross_spine hint=conditional_required: scope is required unless cross_spine is true"],
    ["list_memory", { scope: "project:x", created_after: "yesterday" }, "field=created_after hint=format: created_after must be RFC3339"],
    ["get_memory", {}, "field=id hint=required: id is required"],
    ["update_memory", { id: "abc" }, "field=content hint=required: content is required"],
    ["update_memory", { content: "x" }, "field=id hint=required: id is required"],
    ["delete_memory", {}, "field=id hint=required: id is required"],
    ["set_visibility", { id: "abc" }, "field=shared hint=required: shared is required"],
    [
      "schedule_memory",
      memory(),
      "field=not_before,not_after hint=required: schedule_memory requires not_before and/or not_after (use store_memory for unscheduled records)",
    ],
    ["schedule_memory", memory({ not_after: "2001-01-01T00:00:00Z" }), "field=not_after hint=ordering: not_after must be in the future"],
    ["list_scheduled", { scope: "project:x", state: "later" }, "field=state hint=enum: state must be one of scheduled|active|expired|all"],
    ["delete_all", {}, "field=scope hint=required: scope is required"],
    [
      "store_discovery",
      { content: "c", kind: "map", scope: "project:x", citations: [{ kind: "file", ref: "a.ts" }] },
      'field=scope hint=prefix: scope must be a discovery scope (start with "discovery:")',
    ],
    ["store_discovery", { content: "c", kind: "map", scope: "discovery:x" }, "field=citations hint=required: at least one citation is required"],
    ["search_discovery", { query: "q" }, "field=scope,cross_spine hint=conditional_required: scope is required unless cross_spine is true"],
    ["search_discovery", { query: "q", cross_spine: true, kind: "guess" }, 'field=kind hint=enum: kind must be "map" or "fact"'],
    ["supersede_memory", memory({ supersedes: [] }), "field=supersedes hint=required: supersedes is required"],
    ["supersede_memory", memory({ supersedes: ["x".repeat(300)] }), "field=supersedes hint=too_long: supersedes[0] too large: 300 bytes (max 256)"],
    ["store_rule", { content: "c", scope: "project:x", summary: "s" }, "field=scope hint=prefix: scope must be rule:repo:<repo> or rule:project:<project>"],
    ["store_rule", { content: "c", scope: "rule:repo:x", summary: "two\nlines" }, "field=summary hint=format: rule summary must be a single line (no newlines); it is the index entry"],
    ["list_rules", { scopes: ["rule:repo:x", "project:y"] }, "field=scopes hint=prefix: scope at position 1 must be rule:repo:<repo> or rule:project:<project>"],
    ["archive_memory", {}, "field=ids hint=required: ids is required"],
    ["archive_memory", { ids: ["a", " "] }, "field=ids hint=required: ids entries must not be blank"],
    ["restore_memory", { ids: Array.from({ length: 1001 }, (_, i) => `id${i}`) }, "field=ids hint=out_of_range: ids exceeds the maximum of 1000"],
    ["related_memories", {}, "field=id hint=required: id is required"],
    ["related_memories", { id: "abc", k: 1001 }, "field=k hint=out_of_range: k exceeds the maximum of 1000"],
    ["list_tags", { limit: 1001 }, "field=limit hint=out_of_range: limit exceeds the maximum of 1000"],
    ["count_memories", { cross_spine: "yes" }, "field=cross_spine hint=format: cross_spine must be true or false"],
  ];

  it("has at least one rejection case for every tool", () => {
    expect(new Set(rejected.map((r) => r[0]))).toEqual(new Set(TOOL_NAMES));
  });

  it.each(rejected)("rejects %s %j with its envelope, having embedded nothing and touched no store method", async (tool, args, envelope) => {
    const calls = mcp.store.calls.length;
    const embeds = mcp.embedder.calls;
    const r = await mcp.call(tool, args);
    expect(r.isError).toBe(true);
    expect(texts(r)).toEqual([envelope]);
    expect("structuredContent" in r).toBe(false);
    expect(mcp.embedder.calls).toBe(embeds);
    expect(mcp.store.calls.slice(calls)).toEqual([]);
  });

  it("keeps the not-found sentinel with the id exactly as sent", async () => {
    for (const [tool, extra] of [
      ["get_memory", {}],
      ["update_memory", { content: "x" }],
      ["delete_memory", {}],
      ["set_visibility", { shared: true }],
    ] as const) {
      for (const id of ["NoSuchShrt", "5b0c8f4e-2f53-4c1b-9a55-7d1e1f0c2a11"]) {
        const r = await mcp.call(tool, { id, ...extra });
        expect(r.isError, tool).toBe(true);
        expect(texts(r), tool).toEqual([`not found: ${id}`]);
        expect("structuredContent" in r).toBe(false);
      }
    }
  });

  it("answers an unknown tool with a JSON-RPC invalid-params error that does not repeat the name", async () => {
    const err = await mcp.call("no_such_tool_sekrit", {}).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(err?.code).toBe(-32602);
    expect(err?.message).toContain("unknown tool");
    expect(err?.message).not.toContain("sekrit");
  });
});

describe("internal failures", () => {
  let mcp: InMemoryMcp;
  afterEach(async () => mcp.close());

  it("answers exactly internal error, sends the secret nowhere and logs the real error", async () => {
    mcp = await inMemoryMcp();
    const stored = (await mcp.call("store_memory", memory())).structuredContent as { id: string };
    const secret = "SECRET-7f3a-hunter2";
    mcp.store.failOn("resolve", new Error(`disk on fire at /var/lib/engram (${secret})`));
    mcp.store.failOn("search", new Error(`index torn (${secret})`));
    mcp.store.failOn("list", new Error(`scan failed (${secret})`));

    const results = [
      await mcp.call("get_memory", { id: stored.id }),
      await mcp.call("update_memory", { id: stored.id, content: "y" }),
      await mcp.call("delete_memory", { id: stored.id }),
      await mcp.call("set_visibility", { id: stored.id, shared: true }),
      await mcp.call("search_memory", { query: "build", scope: "project:engram" }),
      await mcp.call("list_memory", { scope: "project:engram" }),
    ];
    for (const r of results) {
      expect(r).toEqual({ isError: true, content: [{ type: "text", text: "internal error" }] });
      expect(JSON.stringify(r)).not.toContain(secret);
    }
    const errors = mcp.log.lines.map((l) => JSON.parse(l) as { level: string; tool?: string; error?: string }).filter((l) => l.level === "error");
    expect(errors.map((e) => e.tool)).toEqual(["get_memory", "update_memory", "delete_memory", "set_visibility", "search_memory", "list_memory"]);
    for (const e of errors) expect(e.error).toContain(secret);
  });

  it("answers a failing embedder as internal error too, storing nothing", async () => {
    mcp = await inMemoryMcp();
    mcp.embedder.embedDocuments = () => Promise.reject(new Error("embedding endpoint said 500 with api key sk-SECRET"));
    const r = await mcp.call("store_memory", memory());
    expect(texts(r)).toEqual(["internal error"]);
    expect(JSON.stringify(r)).not.toContain("sk-SECRET");
    expect(mcp.store.calls).not.toContain("put");
  });
});

describe("the stdio subject", () => {
  it("is anonymous unless ENGRAM_MCP_OWNER names an owner", () => {
    expect(stdioSubject({})).toBe(ANONYMOUS);
    expect(stdioSubject({ ENGRAM_MCP_OWNER: "" })).toBe(ANONYMOUS);
    expect(stdioSubject({ ENGRAM_MCP_OWNER: "alice" })).toEqual(ownerSubject("alice"));
  });

  it("scopes what a session sees to its owner", async () => {
    const alice = await inMemoryMcp(ownerSubject("alice"));
    try {
      const stored = (await alice.call("store_memory", memory())).structuredContent as { id: string };
      expect((await alice.call("get_memory", { id: stored.id })).isError).toBeFalsy();
      const bob = await import("../src/mcp/index.js").then(({ createMcpServer }) => createMcpServer(alice.engram.core, ownerSubject("bob")));
      const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
      const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
      const [c, s] = InMemoryTransport.createLinkedPair();
      await bob.connect(s);
      const client = new Client({ name: "bob", version: "0" });
      await client.connect(c);
      const r = await client.callTool({ name: "get_memory", arguments: { id: stored.id } });
      expect(texts(r)).toEqual([`not found: ${stored.id}`]);
      await client.close();
      await bob.close();
    } finally {
      await alice.close();
    }
  });
});
