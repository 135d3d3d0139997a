/**
 * The migration registry: its shipped steps, what makes a registry invalid,
 * and how the declared inverses and irreversible steps behave over a store.
 */
import { describe, expect, it } from "vitest";
import type { Citation } from "../src/core/index.js";
import { inverse, irreversible, LATEST_VERSION, migrate, revert, STEPS, validateRegistry, type MigrationStep } from "../src/store/migrations/index.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import { freshStore, payload, payloads, seed, V } from "./helpers/migration-store.js";

describe("the registry", () => {
  it("the shipped registry is valid and ends at the version every write stamps", () => {
    expect(validateRegistry(STEPS)).toEqual([]);
    expect(CURRENT_SCHEMA_VERSION).toBe(LATEST_VERSION);
    expect(LATEST_VERSION).toBe(2);
  });

  it("reports every problem of a broken registry at once", () => {
    const noop = (p: Record<string, unknown>) => p;
    const broken = [
      { from: 0, to: 1, addedKeys: ["a"], reversibility: irreversible("why"), apply: noop },
      { from: 2, to: 2, addedKeys: [], reversibility: irreversible(" "), apply: noop },
      { from: 0, to: 3, addedKeys: ["c"], reversibility: undefined, apply: noop },
    ] as unknown as MigrationStep[];
    const errors = validateRegistry(broken);
    expect(errors).toEqual([
      "step 1: To=2 must be greater than From=2",
      "step 1: From=2 does not continue from the previous To=1",
      "step 1: declares no added keys",
      "step 1: irreversible without a reason",
      "step 2: duplicate From=0",
      "step 2: From=0 does not continue from the previous To=2",
      "step 2: missing reversibility declaration",
    ]);
  });

  // The step gets its input itself and is checked against a copy taken before it ran; nested values are frozen.
  it.each([
    ["its top-level keys", (p: Record<string, unknown>) => Object.assign(p, { category: "edited", short_id: "X" }), "step 0->1 rewrote key category"],
    ["an array inside it", (p: Record<string, unknown>) => ((p.supersedes as string[]).push("edited"), { ...p, short_id: "X" }), TypeError],
    [
      "an object inside an array inside it",
      (p: Record<string, unknown>) => (((p.citations as Citation[])[0]!.excerpt = "edited"), { ...p, short_id: "X" }),
      TypeError,
    ],
  ] as const)("a step that edits %s in place is refused before any write", async (_what, apply, refusal) => {
    const store = freshStore();
    const cited: Citation = { kind: "file", ref: "src/a.ts", locator: "1", pin: "", excerpt: "as cited" };
    store.transaction(() => {
      for (let i = 0; i < 20; i++) {
        const supersedes = [`00000000-0000-4000-8000-${String(900 + i).padStart(12, "0")}`];
        store.writeRecord(payload(i, { citations: [{ ...cited }], supersedes }), V, 0);
      }
    });
    const before = payloads(store);
    await expect(migrate(store, { target: 1, apply: true, steps: [{ ...STEPS[0]!, apply }] })).rejects.toThrow(refusal);
    expect(payloads(store)).toEqual(before);
  });

  it("a step whose real effect differs from its declaration is refused before any write", async () => {
    const store = freshStore();
    seed(store, 20, 0);
    const sneaky: MigrationStep[] = [
      { ...STEPS[0]!, apply: (p) => ({ ...p, short_id: "X", content: "rewritten" }) },
    ];
    const before = payloads(store);
    await expect(migrate(store, { target: 1, apply: true, steps: sneaky })).rejects.toThrow("step 0->1 rewrote key content");
    expect(payloads(store)).toEqual(before);
  });

  // The checks take a shortcut when a step's output keeps its input's key order; the verdict must not depend on it.
  const reordered = (p: Record<string, unknown>) => Object.fromEntries(Object.entries(p).reverse());
  const without = (p: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(Object.entries(p).filter(([k]) => !keys.includes(k)));

  it.each([
    ["removes a key", (p: Record<string, unknown>) => ({ ...without(p, "content"), short_id: "X" }), "step 0->1 removed key content"],
    ["adds an undeclared key", (p: Record<string, unknown>) => ({ ...p, short_id: "X", extra: 1 }), "step 0->1 added undeclared key extra"],
    ["rewrites a key", (p: Record<string, unknown>) => ({ ...p, short_id: "X", category: "other" }), "step 0->1 rewrote key category"],
  ])("a step that %s is refused in the same words whatever order its output lists its keys in", async (_what, apply, message) => {
    for (const out of [apply, (p: Record<string, unknown>) => reordered(apply(p))]) {
      const store = freshStore();
      seed(store, 5, 0);
      const before = payloads(store);
      await expect(migrate(store, { target: 1, apply: true, steps: [{ ...STEPS[0]!, apply: out }] })).rejects.toThrow(message);
      expect(payloads(store)).toEqual(before);
    }
  });

  it.each([
    ["removes an undeclared key", (p: Record<string, unknown>) => without(p, "content_bytes", "scope"), "inverse of 1->2 removed undeclared key scope"],
    ["adds a key", (p: Record<string, unknown>) => ({ ...without(p, "content_bytes"), extra: 1 }), "inverse of 1->2 added key extra"],
    ["removes an undeclared key and rewrites a later one", (p: Record<string, unknown>) => ({ ...without(p, "content_bytes", "content"), tags: ["x"] }), "inverse of 1->2 rewrote key tags"],
  ])("an inverse that %s is refused in the same words whatever order its output lists its keys in", async (_what, inv, message) => {
    for (const out of [inv, (p: Record<string, unknown>) => reordered(inv(p))]) {
      const store = freshStore();
      seed(store, 5, 2);
      const before = payloads(store);
      await expect(revert(store, { to: 1, apply: true, steps: [STEPS[0]!, { ...STEPS[1]!, reversibility: inverse(out) }] })).rejects.toThrow(message);
      expect(payloads(store)).toEqual(before);
    }
  });

  it("a step and an inverse that keep to their declarations pass whatever order their output lists its keys in", async () => {
    const store = freshStore();
    seed(store, 5, 1);
    const shuffled: MigrationStep[] = [
      STEPS[0]!,
      { ...STEPS[1]!, apply: (p, ctx) => reordered(STEPS[1]!.apply(p, ctx)), reversibility: inverse((p) => reordered(without(p, "content_bytes"))) },
    ];
    expect(await migrate(store, { target: 2, apply: true, steps: shuffled })).toMatchObject({ migrated: 5, failed: 0 });
    expect(await revert(store, { to: 1, apply: true, steps: shuffled })).toMatchObject({ reverted: 5, applied: true });
  });
});
