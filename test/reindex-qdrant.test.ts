/**
 * `engram reindex` on Qdrant, at the function level, on the loopback fake
 * (every request checked against Qdrant's published schemas): the next
 * generation is filled beside the served one, the alias moves in one
 * request, and neither a kill nor a server's writes during the copy lose a
 * record.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ensureEmbedderIdentity, StartupError } from "../src/app.js";
import { ANONYMOUS, createCore, DEFAULT_LIMITS, silentLogger, type Core } from "../src/core/index.js";
import { FakeEmbedder, embeddingText } from "../src/embed/index.js";
import type { MemoryRecord } from "../src/model/record.js";
import type { ReindexProgress } from "../src/operator/index.js";
import { MAX_CATCHUP_PASSES, REINDEX_META, ReindexBehindError, reindexQdrant } from "../src/operator/index.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { PAYLOAD_INDEXES } from "../src/store/qdrant/layout.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

const OLD = new FakeEmbedder(32, "old-model");
const OLD_KEY = "local:old-model:32";
const NEW_KEY = "local:new-model:48";
const CONTENTS = [
  "billing runs on postgres",
  "deploys happen on tuesdays",
  "file names are kebab-case",
  "the cache is redis",
  "logs ship to loki",
  "secrets live in vault",
  "queues run on rabbitmq",
];

let fake: QdrantFake;
let opened: QdrantStore[] = [];

afterEach(async () => {
  for (const s of opened) await s.close();
  opened = [];
  expect(fake.schemaViolations).toEqual([]);
  await fake.close();
});

async function open(dim: number): Promise<QdrantStore> {
  const s = await QdrantStore.open({ url: fake.url, dim });
  opened.push(s);
  return s;
}

function coreOn(store: QdrantStore, embedder: FakeEmbedder): Core {
  return createCore({ store, embedder, limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
}

/** A collection served on the old 32-d embedder, with CONTENTS stored through the core. */
async function seeded(): Promise<{ serving: QdrantStore; core: Core; ids: string[] }> {
  fake = await startQdrantFake({ warn: () => {} });
  const serving = await open(32);
  await ensureEmbedderIdentity(serving, OLD);
  const core = coreOn(serving, OLD);
  const ids: string[] = [];
  for (const content of CONTENTS) ids.push((await core.storeMemory(ANONYMOUS, { content, scope: "repo:r", source: "user-said", category: "decision" })).id);
  return { serving, core, ids };
}

const conn = () => ({ url: fake.url });
const aliasTarget = () => fake.state.aliases.get("engram");
const withoutStamp = (r: MemoryRecord | undefined) => {
  const { embedder_identity: _stamp, ...rest } = (r ?? {}) as MemoryRecord;
  return rest;
};

async function topHit(store: QdrantStore, embedder: FakeEmbedder, query: string): Promise<string | undefined> {
  const hits = await coreOn(store, embedder).searchMemories(ANONYMOUS, { query, scope: "repo:r", k: 1 }, "connect");
  return hits.memories[0]?.summary;
}

/** Replaces a record's content through a serving store, as an update from a server would. */
async function rewrite(store: QdrantStore, id: string, content: string): Promise<void> {
  const r = (await store.getRaw(id))!;
  const next = { ...r, content, summary: content };
  await store.replace(next, await OLD.embedQuery(embeddingText(content, r.tags ?? [])));
}

describe("engram reindex on Qdrant", () => {
  it("previews without writing, then fills <alias>-g2 at the new dimension, moves the alias and drops g1; every record reads and searches on the new embedder, and the old one is refused", async () => {
    const { serving, ids } = await seeded();
    const before = await Promise.all(ids.map((id) => serving.getRaw(id)));
    const NEW = new FakeEmbedder(48, "new-model");

    const preview = await reindexQdrant(conn(), NEW, { apply: false });
    expect(preview).toEqual({ dry_run: true, from_identity: OLD_KEY, to_identity: NEW_KEY, records: 7, pending: 7, reembedded: 0, already_done: 0 });
    expect([...fake.state.collections.keys()]).toEqual(["engram-g1"]);
    expect(NEW.texts).toBe(0);

    const progress: ReindexProgress[] = [];
    const applied = await reindexQdrant(conn(), NEW, { apply: true, batch: 3, settleMs: 0, onProgress: (p) => void progress.push(p) });
    expect(applied).toEqual({ dry_run: false, from_identity: OLD_KEY, to_identity: NEW_KEY, records: 7, pending: 7, reembedded: 7, already_done: 0 });
    expect(progress).toEqual([
      { done: 0, total: 7 },
      { done: 3, total: 7 },
      { done: 6, total: 7 },
      { done: 7, total: 7 },
    ]);
    expect(NEW.texts).toBe(7);
    expect(aliasTarget()).toBe("engram-g2");
    expect([...fake.state.collections.keys()]).toEqual(["engram-g2"]);
    const g2 = fake.state.collections.get("engram-g2")!;
    expect([...g2.indexes.keys()].sort()).toEqual(PAYLOAD_INDEXES.map((i) => i.key).sort());
    expect(g2.strictMode).toMatchObject({ enabled: true, unindexed_filtering_retrieve: false, unindexed_filtering_update: false });
    expect(g2.metadata).toMatchObject({ engram_dim: 48, engram_layout: 1, "engram_meta:embedder_identity": NEW_KEY });
    expect(g2.metadata[REINDEX_META.target] ?? null).toBeNull();
    // The alias moved in exactly one update_aliases request, deleting and creating together.
    const switches = fake.requests.filter((r) => r.operation === "update_aliases").slice(1);
    expect(switches.map((r) => r.body)).toEqual([
      { actions: [{ delete_alias: { alias_name: "engram" } }, { create_alias: { collection_name: "engram-g2", alias_name: "engram" } }] },
    ]);

    const fresh = await open(48);
    await expect(ensureEmbedderIdentity(fresh, NEW)).resolves.toBeUndefined();
    const after = await Promise.all(ids.map((id) => fresh.getRaw(id)));
    expect(after.map(withoutStamp)).toEqual(before.map(withoutStamp));
    expect(after.every((r) => r?.embedder_identity === NEW_KEY)).toBe(true);
    expect((await fresh.vectorOf(ids[0]!))?.length).toBe(48);
    expect(await topHit(fresh, NEW, "which cache, redis?")).toBe("the cache is redis");
    expect(await topHit(fresh, NEW, "postgres billing")).toBe("billing runs on postgres");

    const refused = await QdrantStore.open({ url: fake.url, dim: 32 }).catch((e: unknown) => e);
    expect((refused as Error).message).toBe(
      "the Qdrant collection holds 48-dimensional vectors but the embedder makes 32: run engram reindex, or point ENGRAM_QDRANT_COLLECTION elsewhere",
    );
    expect(await reindexQdrant(conn(), NEW, { apply: false })).toMatchObject({ from_identity: NEW_KEY, records: 7, pending: 0 });
  });

  it("a run killed mid-copy leaves servers on the old generation; a rerun continues into the same next generation and re-embeds only what is left", async () => {
    const { ids } = await seeded();
    const NEW = new FakeEmbedder(48, "new-model");
    const kill = new Error("killed");
    const stopped = await reindexQdrant(conn(), NEW, {
      apply: true,
      batch: 3,
      settleMs: 0,
      onProgress: (p) => {
        if (p.done === 3) throw kill;
      },
    }).catch((e: unknown) => e);
    expect(stopped).toBe(kill);
    expect(aliasTarget()).toBe("engram-g1");
    expect(fake.state.collections.get("engram-g2")?.points.size).toBe(3);

    // Servers keep serving the old generation on the old embedder; the new one is still refused.
    const old = await open(32);
    await expect(ensureEmbedderIdentity(old, OLD)).resolves.toBeUndefined();
    expect((await Promise.all(ids.map((id) => old.getRaw(id)))).every((r) => r !== undefined)).toBe(true);
    const early = await QdrantStore.open({ url: fake.url, dim: 48 }).catch((e: unknown) => e);
    expect((early as Error).message).toContain("holds 32-dimensional vectors but the embedder makes 48");

    expect(await reindexQdrant(conn(), NEW, { apply: false })).toEqual({
      dry_run: true,
      from_identity: OLD_KEY,
      to_identity: NEW_KEY,
      records: 7,
      pending: 4,
      reembedded: 0,
      already_done: 3,
    });
    const textsBefore = NEW.texts;
    const rerun = await reindexQdrant(conn(), NEW, { apply: true, batch: 3, settleMs: 0 });
    expect(rerun).toMatchObject({ dry_run: false, records: 7, pending: 4, reembedded: 4, already_done: 3 });
    expect(NEW.texts - textsBefore).toBe(4);
    expect(aliasTarget()).toBe("engram-g2");

    const fresh = await open(48);
    await expect(ensureEmbedderIdentity(fresh, NEW)).resolves.toBeUndefined();
    expect((await Promise.all(ids.map((id) => fresh.getRaw(id)))).every((r) => r?.embedder_identity === NEW_KEY)).toBe(true);
    expect(await topHit(fresh, NEW, "where do logs go? loki")).toBe("logs ship to loki");
  });

  it("records a server creates, updates and deletes during the copy are in the new generation as the server left them", async () => {
    const { serving, core } = await seeded();
    const NEW = new FakeEmbedder(48, "new-model");
    let created = "";
    let updated = "";
    let deleted = "";
    const report = await reindexQdrant(conn(), NEW, {
      apply: true,
      batch: 3,
      settleMs: 0,
      onProgress: async (p) => {
        if (p.done !== 3) return;
        // Both of these were copied already; the server writes them on the old generation behind the alias.
        const [a, b] = [...fake.state.collections.get("engram-g2")!.points.values()].map((p) => String(p.id));
        updated = a!;
        deleted = b!;
        await rewrite(serving, updated, "the cache moved to valkey");
        expect(await serving.delete(deleted)).toBe(true);
        created = (await core.storeMemory(ANONYMOUS, { content: "search runs on opensearch", scope: "repo:r", source: "user-said", category: "decision" })).id;
      },
    });
    expect(report).toMatchObject({ records: 7, pending: 7 });
    expect(report.reembedded).toBe(9);

    const fresh = await open(48);
    expect((await fresh.getRaw(updated))?.content).toBe("the cache moved to valkey");
    expect(await fresh.getRaw(deleted)).toBeUndefined();
    expect((await fresh.getRaw(created))?.embedder_identity).toBe(NEW_KEY);
    expect((await fresh.schemaHistogram()).total).toBe(7);
    expect(await topHit(fresh, NEW, "valkey cache")).toBe("the cache moved to valkey");
    expect(await topHit(fresh, NEW, "opensearch")).toBe("search runs on opensearch");
  });

  it("a write that lands after the last catch-up pass, just before the switch, is copied by the re-check after it", async () => {
    const { serving, core, ids } = await seeded();
    const NEW = new FakeEmbedder(48, "new-model");
    let late = "";
    await reindexQdrant(conn(), NEW, {
      apply: true,
      settleMs: 0,
      onPhase: async (phase) => {
        if (phase !== "copied") return;
        expect(aliasTarget()).toBe("engram-g1");
        await rewrite(serving, ids[2]!, "file names are snake_case now");
        await serving.delete(ids[3]!);
        late = (await core.storeMemory(ANONYMOUS, { content: "metrics go to prometheus", scope: "repo:r", source: "user-said", category: "decision" })).id;
      },
    });
    expect(aliasTarget()).toBe("engram-g2");
    const fresh = await open(48);
    expect((await fresh.getRaw(ids[2]!))?.content).toBe("file names are snake_case now");
    expect(await fresh.getRaw(ids[3]!)).toBeUndefined();
    expect((await fresh.getRaw(late))?.content).toBe("metrics go to prometheus");
    expect(await topHit(fresh, NEW, "prometheus metrics")).toBe("metrics go to prometheus");
  });

  it("a write on the new generation after the switch wins over the re-check", async () => {
    const { serving, ids } = await seeded();
    const NEW = new FakeEmbedder(48, "new-model");
    await reindexQdrant(conn(), NEW, {
      apply: true,
      settleMs: 0,
      onPhase: async (phase) => {
        if (phase === "copied") await rewrite(serving, ids[0]!, "billing moved to cockroach");
        if (phase === "switched") {
          // A server already on the new embedder updates the same record on the new generation.
          const s = await open(48);
          const r = (await s.getRaw(ids[0]!))!;
          await s.replace({ ...r, content: "billing runs on postgres 17", summary: "billing runs on postgres 17" }, await NEW.embedQuery("billing runs on postgres 17"));
        }
      },
    });
    const fresh = await open(48);
    expect((await fresh.getRaw(ids[0]!))?.content).toBe("billing runs on postgres 17");
  });

  it("servers that never stop writing make the run stop without switching, after the catch-up bound; a rerun once they pause finishes", async () => {
    const { serving, ids } = await seeded();
    const NEW = new FakeEmbedder(48, "new-model");
    let writes = 0;
    const busy = await reindexQdrant(conn(), NEW, {
      apply: true,
      batch: 100,
      settleMs: 0,
      onProgress: async (p) => {
        if (p.done === 0) return;
        writes++;
        await rewrite(serving, ids[writes % ids.length]!, `note number ${writes}`);
      },
    }).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(ReindexBehindError);
    // The first copy and every catch-up pass each met a fresh write.
    expect(writes).toBe(MAX_CATCHUP_PASSES + 1);
    expect(aliasTarget()).toBe("engram-g1");
    await expect(ensureEmbedderIdentity(await open(32), OLD)).resolves.toBeUndefined();

    const rerun = await reindexQdrant(conn(), NEW, { apply: true, settleMs: 0 });
    expect(rerun).toMatchObject({ records: 7, pending: 1, already_done: 6, reembedded: 1 });
    expect(aliasTarget()).toBe("engram-g2");
    expect((await (await open(48)).getRaw(ids[writes % ids.length]!))?.content).toBe(`note number ${writes}`);
  });

  it("a half-filled generation left by a run for another embedder is dropped and filled again for this one", async () => {
    const { ids } = await seeded();
    const abandoned = await reindexQdrant(conn(), new FakeEmbedder(48, "new-model"), {
      apply: true,
      batch: 2,
      settleMs: 0,
      onProgress: (p) => {
        if (p.done === 2) throw new Error("killed");
      },
    }).catch((e: unknown) => e);
    expect((abandoned as Error).message).toBe("killed");
    const OTHER = new FakeEmbedder(40, "other-model");
    expect(await reindexQdrant(conn(), OTHER, { apply: false })).toMatchObject({ records: 7, pending: 7, already_done: 0 });
    const report = await reindexQdrant(conn(), OTHER, { apply: true, settleMs: 0 });
    expect(report).toMatchObject({ to_identity: "local:other-model:40", records: 7, pending: 7, reembedded: 7, already_done: 0 });
    expect(aliasTarget()).toBe("engram-g2");
    const fresh = await open(40);
    await expect(ensureEmbedderIdentity(fresh, OTHER)).resolves.toBeUndefined();
    expect((await Promise.all(ids.map((id) => fresh.getRaw(id)))).every((r) => r?.embedder_identity === "local:other-model:40")).toBe(true);
  });

  it("a model change at the same dimension also moves to the next generation, and the old model is then refused by the identity check", async () => {
    const { ids } = await seeded();
    const SAME = new FakeEmbedder(32, "new-model");
    // Before the run, a server on the new model is refused: the collection still belongs to the old one.
    expect(await ensureEmbedderIdentity(await open(32), SAME).catch((e: unknown) => e)).toBeInstanceOf(StartupError);
    const report = await reindexQdrant(conn(), SAME, { apply: true, settleMs: 0 });
    expect(report).toMatchObject({ from_identity: OLD_KEY, to_identity: "local:new-model:32", records: 7, reembedded: 7 });
    expect(aliasTarget()).toBe("engram-g2");
    const fresh = await open(32);
    await expect(ensureEmbedderIdentity(fresh, SAME)).resolves.toBeUndefined();
    const refused = await ensureEmbedderIdentity(fresh, OLD).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StartupError);
    expect((refused as Error).message).toContain("engram reindex");
    expect((await fresh.getRaw(ids[4]!))?.embedder_identity).toBe("local:new-model:32");
  });

  it("a run killed right after the switch leaves the new generation served; its rerun drops the old one and clears the markers", async () => {
    const { ids } = await seeded();
    const NEW = new FakeEmbedder(48, "new-model");
    const killed = await reindexQdrant(conn(), NEW, {
      apply: true,
      settleMs: 0,
      onPhase: (phase) => {
        if (phase === "switched") throw new Error("killed");
      },
    }).catch((e: unknown) => e);
    expect((killed as Error).message).toBe("killed");
    expect(aliasTarget()).toBe("engram-g2");
    expect([...fake.state.collections.keys()].sort()).toEqual(["engram-g1", "engram-g2"]);
    const serving = await open(48);
    expect((await serving.getRaw(ids[1]!))?.embedder_identity).toBe(NEW_KEY);

    const rerun = await reindexQdrant(conn(), NEW, { apply: true, settleMs: 0 });
    expect(rerun).toEqual({ dry_run: false, from_identity: NEW_KEY, to_identity: NEW_KEY, records: 7, pending: 0, reembedded: 0, already_done: 0 });
    expect([...fake.state.collections.keys()]).toEqual(["engram-g2"]);
    const meta = fake.state.collections.get("engram-g2")!.metadata;
    expect(meta[REINDEX_META.source] ?? null).toBeNull();
    expect(meta[REINDEX_META.target] ?? null).toBeNull();
  });

  it("without a collection behind the alias there is nothing to reindex and nothing is made", async () => {
    fake = await startQdrantFake({ warn: () => {} });
    const report = await reindexQdrant(conn(), new FakeEmbedder(48, "new-model"), { apply: true, settleMs: 0 });
    expect(report).toEqual({ dry_run: false, from_identity: "", to_identity: NEW_KEY, records: 0, pending: 0, reembedded: 0, already_done: 0 });
    expect(fake.state.collections.size).toBe(0);
  });
});
