import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ANONYMOUS, type MemoryRecord } from "../src/core/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import {
  DEFAULT_BATCH_BYTES,
  migrate,
  previewRevert,
  refusalError,
  revert,
  RevertRefusedError,
  STEPS,
  irreversible,
  inverse,
  type MigrationStep,
} from "../src/store/migrations/index.js";
import { GATE_ON } from "../src/store/store.js";
import { data, freshStore, payload, payloads, revisions, seed, V } from "./helpers/migration-store.js";

describe("up, down, up over 10,000 records", () => {
  it("every payload after the round trip equals the payload before it, and every sweep write is a new revision", async () => {
    const store = freshStore();
    seed(store, 10_000, 1);
    const atV1 = data(store);
    const revV1 = revisions(store);
    const up = await migrate(store, { target: 2, apply: true });
    expect(up).toMatchObject({ would_migrate: 10_000, migrated: 10_000, failed: 0, backlog: 0, appeared: 0 });
    const atV2 = data(store);
    const revV2 = revisions(store);
    for (const [id, p] of atV2) {
      const rec = JSON.parse(p) as MemoryRecord;
      expect(rec.schema_version).toBe(2);
      expect(rec.content_bytes).toBe(Buffer.byteLength(rec.content));
      expect({ ...rec, content_bytes: undefined, schema_version: 1 }).toEqual({ ...JSON.parse(atV1.get(id)!), content_bytes: undefined });
      // A conditional writer that read the record before the sweep cannot overwrite what the sweep wrote.
      expect(revV2.get(id)).not.toBe(revV1.get(id));
    }
    const down = await revert(store, { to: 1, apply: true });
    expect(down).toMatchObject({ applied: true, reversible: true, candidates: 10_000, reverted: 10_000, failed: 0, backlog: 0 });
    expect(data(store)).toEqual(atV1);
    await migrate(store, { target: 2, apply: true });
    expect(data(store)).toEqual(atV2);
  });
});

describe("revert refusals never lie", () => {
  it("reverting v2 data to 0 is refused as irreversible, and nothing is written", async () => {
    const store = freshStore();
    seed(store, 50, 2);
    const before = payloads(store);
    const plan = await previewRevert(store, 0);
    expect(plan).toEqual({ to: 0, candidates: 50, irreversible: [{ from: 0, to: 1, reason: STEPS[0]!.reversibility.kind === "irreversible" ? STEPS[0]!.reversibility.reason : "" }], unsupported: [] });
    await expect(revert(store, { to: 0, apply: true })).rejects.toThrow(RevertRefusedError);
    try {
      await revert(store, { to: 0, apply: true });
    } catch (e) {
      const r = e as RevertRefusedError;
      expect(r.envelope).toBe(
        "field=steps hint=irreversible: revert cannot reach v0: step (From=0 To=1) is irreversible: snapshot recovery: minted short_ids may already be cited by get_memory/supersede_memory (D-03); recovery is a collection snapshot",
      );
      expect(r.partial).toBe(false);
      // Refused before the loop: every progress counter is zero, backlog included.
      expect(r.report).toEqual({
        to: 0,
        applied: false,
        reversible: false,
        candidates: 50,
        reverted: 0,
        failed: 0,
        passes: 0,
        backlog: 0,
        refusal: r.envelope,
      });
    }
    expect(payloads(store)).toEqual(before);
    // A preview of the same range reports and does not throw.
    expect((await revert(store, { to: 0, apply: false })).refusal).toMatch(/^field=steps hint=irreversible: /);
  });

  it("irreversible outranks unsupported and folds it in; unsupported alone names record_version", async () => {
    const both = refusalError({ to: 0, candidates: 3, irreversible: [{ from: 0, to: 1, reason: "r" }], unsupported: [{ version: 9, count: 2 }] });
    expect(both?.message).toBe(
      "field=steps hint=irreversible: revert cannot reach v0: step (From=0 To=1) is irreversible: r; additionally, 2 record(s) at version 9 have no reachable chain to target 0; recovery is a collection snapshot",
    );
    const store = freshStore();
    seed(store, 3, 2);
    store.writeRecord(payload(99), V, 9);
    const plan = await previewRevert(store, 1);
    expect(refusalError(plan)?.message).toBe(
      "field=record_version hint=unsupported: 1 record(s) at version 9 have no reachable chain to target 1; recovery is a collection snapshot",
    );
  });

  it("a record that appears mid-revert with no chain refuses with the real counters and says it is partial", async () => {
    const store = freshStore();
    seed(store, 600, 2);
    let injected = false;
    let caught: RevertRefusedError | undefined;
    try {
      await revert(store, {
        to: 1,
        apply: true,
        batch: 256,
        onProgress: () => {
          if (!injected) {
            injected = true;
            store.writeRecord(payload(5000), V, 7);
          }
        },
      });
    } catch (e) {
      caught = e as RevertRefusedError;
    }
    expect(caught).toBeInstanceOf(RevertRefusedError);
    expect(caught!.partial).toBe(true);
    // The record at v7 sorts after every v2 record, so the third pass reverts the last 88 and then meets it.
    expect(caught!.report).toEqual({
      to: 1,
      applied: false,
      reversible: false,
      candidates: 1,
      reverted: 600,
      failed: 0,
      passes: 3,
      backlog: 1,
      refusal: caught!.envelope,
    });
    expect(await store.countAbove(1)).toBe(1);
    expect(caught!.envelope).toBe(
      "field=record_version hint=unsupported: 1 record(s) at version 7 have no reachable chain to target 1; recovery is a collection snapshot",
    );
  });
});

describe("batches bounded by bytes", () => {
  it("a byte budget smaller than one record migrates one record per pass, and every record still arrives", async () => {
    const store = freshStore();
    seed(store, 10, 1);
    const r = await migrate(store, { target: 2, apply: true, batchBytes: 1 });
    // Ten passes of one record, then the pass that finds the backlog empty.
    expect(r).toMatchObject({ migrated: 10, failed: 0, passes: 11, backlog: 0 });
    const byDefault = freshStore();
    seed(byDefault, 10, 1);
    expect(await migrate(byDefault, { target: 2, apply: true })).toMatchObject({ migrated: 10, passes: 2 });
  });

  it("docs/migrate.md states the byte budget the engine applies", () => {
    const doc = readFileSync(new URL("../docs/migrate.md", import.meta.url), "utf8");
    expect(doc).toContain(`at most ${DEFAULT_BATCH_BYTES / (1024 * 1024)} MiB of stored`);
  });
});

describe("the forward sweep", () => {
  it("mints short ids for v0 records and never re-mints an existing one", async () => {
    const store = freshStore();
    seed(store, 10, 0);
    store.writeRecord(payload(50, { short_id: "KEEPTHIS01" }), V, 0);
    const r = await migrate(store, { target: 2, apply: true });
    expect(r.migrated).toBe(11);
    const all = [...payloads(store).values()].map((p) => JSON.parse(p) as MemoryRecord);
    expect(all.every((x) => /^[0-9A-Z]{10}$/.test(x.short_id))).toBe(true);
    expect(all.find((x) => x.id.endsWith("000000000050"))!.short_id).toBe("KEEPTHIS01");
  });

  it("mints the ids of one sweep in ascending record order, each in the column the index reads and in the payload", async () => {
    const store = freshStore();
    seed(store, 3000, 0);
    await migrate(store, { target: 2, apply: true, batch: 256 });
    const rows = store.database.prepare("SELECT short_id, payload FROM records ORDER BY rid").all() as { short_id: string; payload: string }[];
    const ids = rows.map((r) => r.short_id);
    expect(ids.every((x) => /^[0-9A-HJKMNP-TV-Z]{10}$/.test(x))).toBe(true);
    expect(rows.every((r) => (JSON.parse(r.payload) as MemoryRecord).short_id === r.short_id)).toBe(true);
    expect(ids.every((x, i) => i === 0 || ids[i - 1]! < x)).toBe(true);
    expect(new Set(ids).size).toBe(3000);
  });

  it("writers at the old version appearing during apply are reported as appeared, never silently skipped", async () => {
    const store = freshStore();
    seed(store, 1000, 1);
    let round = 0;
    const r = await migrate(store, {
      target: 2,
      apply: true,
      batch: 100,
      onProgress: () => {
        // An old binary keeps writing v1 records while the sweep runs.
        if (round < 3) store.writeRecord(payload(20_000 + round++), V, 1);
      },
    });
    expect(r.migrated).toBe(1000);
    expect(r.appeared).toBe(3);
    expect(r.backlog).toBe(3);
    expect(await store.countBelow(2, false)).toBe(3);
    // Re-running picks them up.
    expect(await migrate(store, { target: 2, apply: true })).toMatchObject({ would_migrate: 3, migrated: 3, backlog: 0 });
  });

  it("a write that fails in a pass leaves its record pending, and the next pass migrates it", async () => {
    const store = freshStore();
    seed(store, 300, 1);
    const victim = payload(150).id;
    // The file refuses this one record's rewrite until the first pass is over.
    store.database.exec(`CREATE TEMP TRIGGER refuse BEFORE UPDATE ON records WHEN new.id = '${victim}' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    const r = await migrate(store, { target: 2, apply: true, batch: 200, onProgress: () => store.database.exec("DROP TRIGGER IF EXISTS temp.refuse") });
    expect(r).toMatchObject({ migrated: 300, failed: 1, backlog: 0 });
    expect(await store.countBelow(2, false)).toBe(0);
    expect((JSON.parse(payloads(store).get(victim)!) as MemoryRecord).schema_version).toBe(2);
  });

  it("records another connection writes above the target while a revert runs are reverted too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-mig-"));
    const store = EmbeddedStore.open({ dataDir: dir, dim: 4 });
    const server = EmbeddedStore.open({ dataDir: dir, dim: 4 });
    seed(store, 500, 2);
    let round = 0;
    const r = await revert(store, {
      to: 1,
      apply: true,
      batch: 100,
      // A server keeps storing records (at the current version) while the revert runs.
      onProgress: () => {
        if (round < 3) server.writeRecord(payload(30_000 + round++), V);
      },
    });
    expect(r).toMatchObject({ applied: true, reverted: 503, failed: 0, backlog: 0 });
    expect(await store.countAbove(1)).toBe(0);
    expect(store.database.prepare("SELECT count(*) AS n FROM records WHERE schema_version = 1").get()).toEqual({ n: 503 });
    await server.close();
    await store.close();
  });

  it("a preview writes nothing and counts the backlog", async () => {
    const store = freshStore();
    seed(store, 30, null);
    const before = payloads(store);
    expect(await migrate(store, { target: 2, apply: false })).toMatchObject({ dry_run: true, would_migrate: 30, migrated: 0, passes: 0 });
    expect(payloads(store)).toEqual(before);
  });

  it("a record deleted mid-run is not resurrected", async () => {
    const store = freshStore();
    seed(store, 300, 1);
    const victim = payload(299).id;
    const r = await migrate(store, { target: 2, apply: true, batch: 100, onProgress: () => void store.database.prepare("DELETE FROM records WHERE id = ?").run(victim) });
    expect(r.failed).toBe(0);
    expect(store.database.prepare("SELECT count(*) AS n FROM records WHERE id = ?").get(victim)).toEqual({ n: 0 });
  });

  it("an inverse that edits its input in place is measured against the record as it was, and refused", async () => {
    const editing = inverse((p) => {
      p.content = "edited";
      const { content_bytes: _dropped, ...rest } = p;
      return rest;
    });
    const bad: MigrationStep[] = [STEPS[0]!, { ...STEPS[1]!, reversibility: editing }];
    const store = freshStore();
    seed(store, 5, 2);
    const before = payloads(store);
    await expect(revert(store, { to: 1, apply: true, steps: bad, batch: 10 })).rejects.toThrow("inverse of 1->2 rewrote key content");
    expect(payloads(store)).toEqual(before);
  });

  it("inverse steps may only remove what they added", async () => {
    const bad: MigrationStep[] = [STEPS[0]!, { ...STEPS[1]!, reversibility: inverse((p) => ({ ...p, content: "x" })) }];
    const store = freshStore();
    seed(store, 5, 2);
    const before = payloads(store);
    await expect(revert(store, { to: 1, apply: true, steps: bad, batch: 10 })).rejects.toThrow("inverse of 1->2 rewrote key content");
    expect(payloads(store)).toEqual(before);
  });
});

describe("what a pass writes, as other connections see it", () => {
  const everything = { subject: ANONYMOUS, gate: GATE_ON, now: 2_000_000_000 };
  const logged = (s: EmbeddedStore) => (s.database.prepare("SELECT count(*) AS n FROM change_log").get() as { n: number }).n;

  function pair(): { store: EmbeddedStore; server: EmbeddedStore } {
    const dir = mkdtempSync(join(tmpdir(), "engram-mig-"));
    return { store: EmbeddedStore.open({ dataDir: dir, dim: 4 }), server: EmbeddedStore.open({ dataDir: dir, dim: 4 }) };
  }

  it("a record another connection rewrites after the preflight computed it is migrated from what it holds now, so that write is not lost", async () => {
    const { store, server } = pair();
    seed(store, 1000, 1);
    const late = payload(900, { short_id: "S000000900" });
    // An older server edits a record the first pass has not reached, keeping it below the target.
    const r = await migrateRacing(store, () => server.writeRecord({ ...late, content: "rewritten by the server" }, V, 1));
    expect(r).toMatchObject({ would_migrate: 1000, migrated: 1000, failed: 0, backlog: 0, appeared: 0 });
    const after = JSON.parse(payloads(store).get(late.id)!) as MemoryRecord;
    expect(after).toMatchObject({ content: "rewritten by the server", content_bytes: Buffer.byteLength("rewritten by the server"), schema_version: 2 });
    await server.close();
    await store.close();
  });

  /** migrate --apply to v2 in passes of 100, running `race` once, after the first pass. */
  function migrateRacing(store: EmbeddedStore, race: () => void) {
    let raced = false;
    return migrate(store, {
      target: 2,
      apply: true,
      batch: 100,
      onProgress: () => {
        if (raced) return;
        raced = true;
        race();
      },
    });
  }

  /** Gives record `id` the short id Q000000900 in columns no trigger watches: nothing is logged, only the commit shows. */
  function rewriteUnlogged(server: EmbeddedStore, id: string): void {
    server.database.prepare("UPDATE records SET short_id = 'Q000000900', payload = json_set(payload, '$.short_id', 'Q000000900') WHERE id = ?").run(id);
  }

  /** `late` migrated from what rewriteUnlogged left, in its columns and its payload alike. */
  function expectMigratedFromRewrite(store: EmbeddedStore, late: MemoryRecord): void {
    const row = store.database.prepare("SELECT short_id, schema_version, payload FROM records WHERE id = ?").get(late.id) as {
      short_id: string;
      schema_version: number;
      payload: string;
    };
    expect({ short_id: row.short_id, schema_version: row.schema_version }).toEqual({ short_id: "Q000000900", schema_version: 2 });
    expect(JSON.parse(row.payload)).toMatchObject({ short_id: "Q000000900", content_bytes: Buffer.byteLength(late.content), schema_version: 2 });
  }

  it("a record another connection rewrites without a change-log row after the preflight (as another sweep does) is migrated from what it holds now", async () => {
    const { store, server } = pair();
    seed(store, 1000, 1);
    const late = payload(900, { short_id: "S000000900" });
    const r = await migrateRacing(store, () => rewriteUnlogged(server, late.id));
    expect(r).toMatchObject({ migrated: 1000, failed: 0, backlog: 0 });
    expectMigratedFromRewrite(store, late);
    await server.close();
    await store.close();
  });

  it("a record another connection rewrites without a change-log row while the preflight reads is migrated from what it holds now", async () => {
    const { store, server } = pair();
    seed(store, 1000, 1);
    const early = payload(10);
    const late = payload(900, { short_id: "S000000900" });
    let raced = false;
    // The registry's own steps, the second one made to let the other connection write as the preflight reaches record 10.
    const steps: MigrationStep[] = [
      STEPS[0]!,
      {
        ...STEPS[1]!,
        apply: (p, ctx) => {
          if (!raced && p.id === early.id) {
            raced = true;
            rewriteUnlogged(server, late.id);
          }
          return STEPS[1]!.apply(p, ctx);
        },
      },
    ];
    const r = await migrate(store, { target: 2, apply: true, batch: 100, steps });
    expect(raced).toBe(true);
    expect(r).toMatchObject({ migrated: 1000, failed: 0, backlog: 0 });
    expectMigratedFromRewrite(store, late);
    await server.close();
    await store.close();
  });

  it("a pass that only adds keys no reader mirrors logs nothing, and a server with the file open still reads every record migrated", async () => {
    const { store, server } = pair();
    seed(store, 500, 0);
    // The server's mirror is loaded before the sweep.
    expect(await server.count(everything)).toBe(500);
    const before = logged(store);
    expect(await migrate(store, { target: 2, apply: true })).toMatchObject({ migrated: 500, backlog: 0 });
    expect(logged(store)).toBe(before);
    const page = await server.list(everything, { order: "asc", limit: 500 });
    expect(page.total).toBe(500);
    expect(page.records.every((x) => x.schema_version === 2 && /^[0-9A-Z]{10}$/.test(x.short_id))).toBe(true);
    const one = page.records[123]!;
    expect(await server.resolve(one.short_id)).toEqual({ kind: "id", id: one.id });
    await server.close();
    await store.close();
  });

  it("a server that point-read a record before a quiet pass returns it migrated after, not the payload it read before", async () => {
    const { store, server } = pair();
    seed(store, 50, 0);
    const first = (await server.list(everything, { order: "asc", limit: 1 })).records[0]!;
    const { id } = first;
    const subject = { ...ANONYMOUS, owner: first.owner ?? "" };
    // Twice: the second read is answered from the server's payload cache.
    expect((await server.getReadable(id, subject))?.schema_version).toBe(0);
    expect((await server.getReadable(id, subject))?.schema_version).toBe(0);
    const before = logged(store);
    expect(await migrate(store, { target: 2, apply: true })).toMatchObject({ migrated: 50, backlog: 0 });
    expect(logged(store)).toBe(before);
    // Twice again: the first read after the sweep catches up, the second must not fall back on the old text.
    for (let i = 0; i < 2; i++) {
      const after = await server.getReadable(id, subject);
      expect(after?.schema_version).toBe(2);
      expect(after?.short_id).toMatch(/^[0-9A-Z]{10}$/);
    }
    await server.close();
    await store.close();
  });

  it("the store that ran a quiet pass returns a record it point-read before the pass migrated, not the payload it read", async () => {
    const { store, server } = pair();
    await server.close();
    seed(store, 20, 0);
    const first = (await store.list(everything, { order: "asc", limit: 1 })).records[0]!;
    const subject = { ...ANONYMOUS, owner: first.owner ?? "" };
    expect((await store.getReadable(first.id, subject))?.schema_version).toBe(0);
    expect((await store.getReadable(first.id, subject))?.schema_version).toBe(0);
    expect(await migrate(store, { target: 2, apply: true })).toMatchObject({ migrated: 20, backlog: 0 });
    expect((await store.getReadable(first.id, subject))?.schema_version).toBe(2);
    await store.close();
  });

  it("a step that fills a key the mirror or the word index reads is written like an ordinary write: logged, indexed, and seen by a server", async () => {
    const { store, server } = pair();
    // Written by a binary that stored no tags key at all.
    store.transaction(() => {
      for (let i = 0; i < 50; i++) store.writeRecord(payload(i, { short_id: `S${String(i).padStart(9, "0")}`, tags: undefined }), V, 1);
    });
    expect(await server.count({ ...everything, kind: "note" })).toBe(0);
    const filling: MigrationStep[] = [
      STEPS[0]!,
      {
        from: 1,
        to: 2,
        addedKeys: ["kind", "tags", "content_bytes"],
        reversibility: irreversible("test step"),
        apply: (p) => ({ ...p, kind: "note", tags: ["swept"], content_bytes: Buffer.byteLength(String(p.content)) }),
      },
    ];
    const before = logged(store);
    expect(await migrate(store, { target: 2, apply: true, steps: filling })).toMatchObject({ migrated: 50, backlog: 0 });
    expect(logged(store)).toBe(before + 50);
    expect(await server.count({ ...everything, kind: "note" })).toBe(50);
    expect(await server.count({ ...everything, tags: ["swept"] })).toBe(50);
    expect(store.database.prepare("SELECT count(*) AS n FROM records_terms WHERE records_terms MATCH 'swept'").get()).toEqual({ n: 50 });
    await server.close();
    await store.close();
  });
});

