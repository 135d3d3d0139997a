import { describe, expect, it } from "vitest";
import { ArgError, SentinelError } from "../src/argerror/index.js";
import { ANONYMOUS, ownerSubject } from "../src/core/index.js";
import { TargetsSupersededError } from "../src/store/store-errors.js";
import { testCore } from "./helpers/test-core.js";

const base = { content: "c", scope: "repo:x", source: "user-said", category: "decision" };
const iso = (d: Date, s: number) => new Date(d.getTime() + s * 1000).toISOString();

async function rejection(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ArgError || e instanceof SentinelError) return e.message;
    throw e;
  }
  throw new Error("expected a rejection");
}

describe("schedule_memory and list_scheduled", () => {
  it("rounds the window outward to whole seconds", async () => {
    const t = testCore();
    const r = await t.core.scheduleMemory(ANONYMOUS, {
      ...base,
      not_before: "2026-06-02T00:00:00.900Z",
      not_after: "2026-06-03T00:00:00.100Z",
    });
    const got = await t.core.getMemory(ANONYMOUS, { id: r.id });
    expect(got.not_before).toBe("2026-06-02T00:00:00Z");
    expect(got.not_after).toBe("2026-06-03T00:00:01Z");
  });

  it("a delayed keyed retry still replays after its not_after has passed", async () => {
    const t = testCore();
    const args = { ...base, idempotency_key: "sched-1", not_after: iso(t.clock.now, 60) };
    const first = await t.core.scheduleMemory(ANONYMOUS, args);
    t.advance(3600);
    const retry = await t.core.scheduleMemory(ANONYMOUS, args);
    expect(retry).toEqual(first);
    // The window is outside the fingerprint: another window still replays.
    const otherWindow = await t.core.scheduleMemory(ANONYMOUS, { ...args, not_after: iso(t.clock.now, 99) });
    expect(otherWindow).toEqual(first);
  });

  it("store_memory and schedule_memory share one idempotency namespace", async () => {
    const t = testCore();
    const stored = await t.core.storeMemory(ANONYMOUS, { ...base, idempotency_key: "shared-key" });
    const scheduled = await t.core.scheduleMemory(ANONYMOUS, { ...base, idempotency_key: "shared-key", not_after: iso(t.clock.now, 60) });
    expect(scheduled).toEqual(stored);
  });

  it("lists scheduled, expired and all states for the owner only, and the recall gate hides both", async () => {
    const t = testCore();
    const alice = ownerSubject("alice");
    const later = await t.core.scheduleMemory(alice, { ...base, content: "later", not_before: iso(t.clock.now, 100) });
    const soon = await t.core.scheduleMemory(alice, { ...base, content: "soon over", not_after: iso(t.clock.now, 10) });
    const now = await t.core.storeMemory(alice, { ...base, content: "plain" });
    const bobs = await t.core.scheduleMemory(ownerSubject("bob"), { ...base, content: "bob", not_before: iso(t.clock.now, 100) });
    await t.core.setVisibility(ownerSubject("bob"), { id: bobs.id, shared: true }, "mcp");
    t.advance(20);
    const ids = async (state?: string) =>
      (await t.core.listScheduled(alice, { scope: "repo:x", state }, "mcp")).memories.map((m) => m.id);
    expect(await ids()).toEqual([later.id]);
    expect(await ids("expired")).toEqual([soon.id]);
    expect((await ids("all")).sort()).toEqual([later.id, soon.id].sort());
    const recall = await t.core.listMemories(alice, { scope: "repo:x" }, "mcp");
    expect(recall.memories.map((m) => m.id)).toEqual([now.id]);
    // Bob's shared scheduled record is readable by alice, so the gate hid it too.
    expect(recall.recall_gate_hidden).toMatchObject({ total: 3, expired: 1, scheduled: 2 });
  });
});

describe("discoveries", () => {
  it("stores with server-set source and category, replaces in place by id, and filters by kind", async () => {
    const t = testCore();
    const s = ownerSubject("alice");
    const cites = [{ kind: "file", ref: "src/a.ts", locator: "1-4", excerpt: "x" }];
    const d = await t.core.storeDiscovery(s, { content: "the parser lives in a.ts", kind: "map", scope: "discovery:repo:x", citations: cites });
    const again = await t.core.storeDiscovery(s, { id: d.short_id, content: "the parser moved to b.ts", kind: "fact", scope: "discovery:repo:x", citations: cites });
    expect(again).toEqual(d);
    const got = await t.core.getMemory(s, { id: d.id });
    expect(got).toMatchObject({ source: "agent-inferred", category: "discovery", kind: "fact", content: "the parser moved to b.ts" });
    const hits = await t.core.searchDiscoveries(s, { query: "parser", cross_spine: true }, "mcp");
    expect(hits.discoveries.map((x) => x.id)).toEqual([d.id]);
    expect(hits.discoveries[0]!.citations).toHaveLength(1);
    expect((await t.core.searchDiscoveries(s, { query: "parser", scope: "discovery:repo:x", kind: "map" }, "mcp")).discoveries).toEqual([]);
    expect(await rejection(t.core.searchDiscoveries(s, { query: "parser" }, "mcp"))).toBe(
      "field=scope,cross_spine hint=conditional_required: scope is required unless cross_spine is true",
    );
    // Connect reads an empty scope as every discovery scope.
    expect((await t.core.searchDiscoveries(s, { query: "parser" }, "connect")).discoveries).toHaveLength(1);
    // A blank scope is an empty one there too, never a refusal naming cross_spine, which SearchDiscoveries has not.
    expect((await t.core.searchDiscoveries(s, { query: "parser", scope: "   " }, "connect")).discoveries).toHaveLength(1);
    expect(await rejection(t.core.searchDiscoveries(s, { query: "parser", scope: "   " }, "mcp"))).toBe(
      "field=scope,cross_spine hint=conditional_required: scope is required unless cross_spine is true",
    );
  });
});

describe("replacing a discovery or a rule in place by id", () => {
  it("keeps a superseded, archived discovery superseded and archived, so its chain keeps one live head", async () => {
    const t = testCore();
    const s = ownerSubject("alice");
    const cites = [{ kind: "file", ref: "src/a.ts", locator: "1-4", excerpt: "x" }];
    const d = await t.core.storeDiscovery(s, { content: "the parser lives in a.ts", kind: "map", scope: "discovery:repo:x", citations: cites });
    const next = await t.core.supersedeMemory(s, { ...base, content: "the parser moved to b.ts", supersedes: [d.id] });
    if (next.validated) throw new Error("unexpected plan");
    await t.core.archiveMemory(s, { ids: [d.id] });
    const before = await t.core.getMemory(s, { id: d.id });
    await t.core.storeDiscovery(s, { id: d.id, content: "the parser lives in c.ts", kind: "fact", scope: "discovery:repo:x", citations: cites });
    const after = await t.core.getMemory(s, { id: d.id });
    expect(after).toMatchObject({ content: "the parser lives in c.ts", kind: "fact", short_id: d.short_id, superseded_by: next.id, archived_at: before.archived_at, created_at: before.created_at });
    expect(await rejection(t.core.supersedeMemory(s, { ...base, content: "a second head", supersedes: [d.id] }))).toMatch(/^target is already superseded/);
  });

  it("keeps an archived rule archived until it is restored", async () => {
    const t = testCore();
    const s = ownerSubject("alice");
    const r = await t.core.storeRule(s, { content: "run the linter before a commit", summary: "lint first", scope: "rule:repo:x" });
    await t.core.archiveMemory(s, { ids: [r.id] });
    await t.core.storeRule(s, { id: r.id, content: "run the linter and the tests before a commit", summary: "lint and test first", scope: "rule:repo:x" });
    expect((await t.core.listRules(s, { scopes: ["rule:repo:x"] })).rules).toEqual([]);
    await t.core.restoreMemory(s, { ids: [r.id] });
    expect((await t.core.listRules(s, { scopes: ["rule:repo:x"] })).rules.map((x) => x.summary)).toEqual(["lint and test first"]);
  });
});

describe("rules", () => {
  const rule = { content: "always run the linter", scope: "rule:repo:x", summary: "run the linter" };

  it("rejects in the contract's order with the contract's texts", async () => {
    const t = testCore();
    const s = ownerSubject("alice");
    const cases: [Record<string, unknown>, string][] = [
      [{ ...rule, content: "" }, "field=content hint=required: content is required"],
      [{ ...rule, content: "x".repeat(8193) }, "field=content hint=too_long: content too large: 8193 bytes (max 8192)"],
      [{ ...rule, scope: "repo:x" }, "field=scope hint=prefix: scope must be rule:repo:<repo> or rule:project:<project>"],
      [{ ...rule, scope: "rule:repo:" }, "field=scope hint=prefix: scope must be rule:repo:<repo> or rule:project:<project>"],
      [{ ...rule, summary: "" }, "field=summary hint=required: summary is required for a rule (it is the one-line index entry)"],
      [{ ...rule, summary: "two\nlines" }, "field=summary hint=format: rule summary must be a single line (no newlines); it is the index entry"],
      [{ ...rule, summary: "y".repeat(257) }, "field=summary hint=too_long: summary too long: 257 bytes (max 256)"],
    ];
    for (const [args, text] of cases) expect(await rejection(t.core.storeRule(s, args))).toBe(text);
    expect(t.embedder.calls).toBe(0);
  });

  it("rules are shared, cannot be made private, and list oldest first with an advisory past the threshold", async () => {
    const t = testCore({ limits: { ruleAdvisoryThreshold: 2 } });
    const s = ownerSubject("alice");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await t.core.storeRule(s, { ...rule, summary: `rule ${i}` })).id);
      t.advance(1);
    }
    const listed = await t.core.listRules(ownerSubject("bob"), {});
    expect(listed.rules.map((r) => r.id)).toEqual(ids);
    expect(listed.advisory).toBe("curation smell — 3 rules in rule:repo:x — consider consolidating");
    expect(await rejection(t.core.setVisibility(s, { id: ids[0], shared: false }, "mcp"))).toBe(
      "rules are always shared — delete the rule instead of changing its visibility",
    );
    expect(await rejection(t.core.updateMemory(s, { id: ids[0], content: "c2", shared: false }, "mcp"))).toBe(
      "rules are always shared — delete the rule instead of making it private",
    );
  });
});

describe("update_memory's stale-summary guard", () => {
  it("refuses to change content under a caller-authored summary, before embedding", async () => {
    const t = testCore();
    const r = await t.core.storeMemory(ANONYMOUS, { ...base, summary: "mine" });
    const calls = t.embedder.calls;
    const text = await rejection(t.core.updateMemory(ANONYMOUS, { id: r.id, content: "new content" }, "mcp"));
    expect(text).toBe(
      'content changed but a caller-authored summary would go stale: re-send the same summary to keep it, pass an updated one, or pass summary="" to clear it',
    );
    expect(t.embedder.calls).toBe(calls);
    await t.core.updateMemory(ANONYMOUS, { id: r.id, content: "new content", summary: "updated" }, "mcp");
    expect((await t.core.getMemory(ANONYMOUS, { id: r.id })).summary).toBe("updated");
  });
});

describe("list_tags", () => {
  it("a tag shown with count N returns N records when used as a filter", async () => {
    const t = testCore();
    const s = ownerSubject("alice");
    const tagsets = [["db", "perf"], ["db"], ["db", "ui"], ["ui"], ["perf", "db"]];
    for (const tags of tagsets) await t.core.storeMemory(s, { ...base, tags });
    const archived = await t.core.storeMemory(s, { ...base, tags: ["db"] });
    await t.core.archiveMemory(s, { ids: [archived.id] });
    await t.core.storeMemory(ownerSubject("bob"), { ...base, tags: ["db"] });
    const { tags, more } = await t.core.listTags(s, {});
    expect(tags).toEqual([
      { tag: "db", count: 4 },
      { tag: "perf", count: 2 },
      { tag: "ui", count: 2 },
    ]);
    expect(more).toBe(false);
    for (const { tag, count } of tags) {
      const listed = await t.core.listMemories(s, { scope: "repo:x", tags: [tag], limit: 1000 }, "connect");
      expect(listed.total).toBe(count);
    }
    expect(await t.core.listTags(s, { limit: 1 })).toEqual({ tags: [{ tag: "db", count: 4 }], more: true });
  });
});

describe("related_memories", () => {
  it("finds chain, citation, tag and vector neighbours, edges in canonical order", async () => {
    const t = testCore();
    const s = ownerSubject("alice");
    const cite = [{ kind: "file", ref: "src/parser.ts" }];
    const old = await t.core.storeMemory(s, { ...base, content: "parser uses recursion" });
    const anchor = await t.core.supersedeMemory(s, { ...base, content: "parser uses a loop now", supersedes: [old.id], citations: cite, tags: ["parser", "rare"] });
    if (anchor.validated) throw new Error("unexpected plan");
    const cited = await t.core.storeMemory(s, { ...base, content: "tokenizer notes", citations: cite });
    const tagged = await t.core.storeMemory(s, { ...base, content: "unrelated words entirely", tags: ["rare"] });
    for (let i = 0; i < 4; i++) await t.core.storeMemory(s, { ...base, content: `filler ${i}`, tags: ["common"] });
    const r = await t.core.relatedMemories(s, { id: anchor.short_id, k: 2 });
    const byId = new Map(r.related.map((x) => [x.memory.id, x.edges.map((e) => e.type)]));
    expect(byId.get(old.id)?.[0]).toBe("supersession");
    expect(byId.get(cited.id)?.[0]).toBe("citation");
    expect(byId.get(tagged.id)?.[0]).toBe("tag");
    expect(r.related.some((x) => x.edges.some((e) => e.type === "vector"))).toBe(true);
    expect(r.anchor.id).toBe(anchor.id);
  });
});

describe("delete_all", () => {
  it("deletes only the caller's own records in the named scope", async () => {
    const t = testCore();
    const a = ownerSubject("alice");
    const b = ownerSubject("bob");
    await t.core.storeMemory(a, base);
    await t.core.storeMemory(a, { ...base, scope: "repo:keep" });
    const bobs = await t.core.storeMemory(b, base);
    expect(await t.core.deleteAll(a, { scope: "repo:x" })).toEqual({ deleted: 1 });
    expect((await t.core.getMemory(b, { id: bobs.id })).id).toBe(bobs.id);
    expect(await rejection(t.core.deleteAll(a, {}))).toBe("field=scope hint=required: scope is required");
  });

  it("a dry run counts exactly what the delete then removes, in every lifecycle state, and deletes nothing", async () => {
    const t = testCore();
    // carol owns only shared records: a client listing could not tell them from another owner's.
    const c = ownerSubject("carol");
    const b = ownerSubject("bob");
    const one = await t.core.storeMemory(c, base);
    const two = await t.core.storeMemory(c, { ...base, content: "d" });
    const bobs = await t.core.storeMemory(b, base);
    for (const [who, id] of [[c, one.id], [c, two.id], [b, bobs.id]] as const) await t.core.setVisibility(who, { id, shared: true }, "connect");
    await t.core.archiveMemory(c, { ids: [two.id] });
    await t.core.storeMemory(c, { ...base, scope: "repo:elsewhere" });
    expect(await t.core.deleteAll(c, { scope: "repo:x", dry_run: true })).toEqual({ deleted: 0, would_delete: 2 });
    expect((await t.core.getMemory(c, { id: one.id })).id).toBe(one.id);
    expect(await rejection(t.core.deleteAll(c, { dry_run: true }))).toBe("field=scope hint=required: scope is required");
    expect(await t.core.deleteAll(c, { scope: "repo:x" })).toEqual({ deleted: 2 });
    expect(await t.core.deleteAll(c, { scope: "repo:x", dry_run: true })).toEqual({ deleted: 0, would_delete: 0 });
  });
});

describe("the store's supersede is the authority under races", () => {
  it("a second supersede of the same head is refused by the store itself and writes nothing", async () => {
    const t = testCore();
    const s = ownerSubject("alice");
    const head = await t.core.storeMemory(s, base);
    const rec = await t.store.getRaw(head.id);
    const v = new Float32Array(64).fill(0.125);
    await t.store.supersede({ ...rec!, id: "11111111-1111-4111-8111-111111111111", short_id: "AAAAAAAAAA" }, v, [head.id], s);
    await expect(
      t.store.supersede({ ...rec!, id: "22222222-2222-4222-8222-222222222222", short_id: "BBBBBBBBBB" }, v, [head.id], s),
    ).rejects.toBeInstanceOf(TargetsSupersededError);
    expect(await t.store.getRaw("22222222-2222-4222-8222-222222222222")).toBeUndefined();
  });
});

describe("search's recall-gate report", () => {
  it("counts the archived record that would have ranked in the top k, and include_archived brings it back", async () => {
    const t = testCore();
    const s = ownerSubject("alice");
    const hidden = await t.core.storeMemory(s, { ...base, content: "rotate the signing keys every quarter" });
    await t.core.storeMemory(s, { ...base, content: "signing keys live in the vault" });
    await t.core.storeMemory(s, { ...base, content: "lunch is at noon" });
    await t.core.archiveMemory(s, { ids: [hidden.id] });
    const gated = await t.core.searchMemories(s, { query: "rotate signing keys", scope: "repo:x", k: 2 }, "connect");
    expect(gated.memories.map((m) => m.id)).not.toContain(hidden.id);
    expect(gated.recall_gate_hidden).toEqual({ total: 1, archived: 1, superseded: 0, expired: 0, scheduled: 0 });
    const relaxed = await t.core.searchMemories(s, { query: "rotate signing keys", scope: "repo:x", k: 2, include_archived: true }, "connect");
    expect(relaxed.memories[0]!.id).toBe(hidden.id);
    expect(relaxed.recall_gate_hidden.total).toBe(0);
  });

  it("counts a record the gate still hides when an include flag lets another through, each record once", async () => {
    const t = testCore();
    const s = ownerSubject("alice");
    const archived = await t.core.storeMemory(s, { ...base, content: "quokka telemetry pipeline" });
    const old = await t.core.storeMemory(s, { ...base, content: "quokka telemetry" });
    for (const filler of ["lunch is at noon", "the build runs nightly", "tabs, not spaces"]) await t.core.storeMemory(s, { ...base, content: filler });
    await t.core.archiveMemory(s, { ids: [archived.id] });
    await t.core.supersedeMemory(s, { ...base, content: "dashboards moved to grafana", supersedes: [old.id] });
    const r = await t.core.searchMemories(s, { query: "quokka telemetry pipeline", scope: "repo:x", k: 2, include_archived: true }, "connect");
    expect(r.memories[0]!.id).toBe(archived.id);
    expect(r.memories.map((m) => m.id)).not.toContain(old.id);
    expect(r.recall_gate_hidden).toEqual({ total: 1, archived: 0, superseded: 1, expired: 0, scheduled: 0 });
  });
});
