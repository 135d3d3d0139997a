import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureEmbedderIdentity, StartupError } from "../src/app.js";
import { createCore, DEFAULT_LIMITS, ANONYMOUS, silentLogger } from "../src/core/index.js";
import { EmbedderError, FakeEmbedder } from "../src/embed/index.js";
import { reindex } from "../src/operator/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { META_EMBEDDER_IDENTITY } from "../src/store/meta-keys.js";

describe("changing embedders", () => {
  it("a start against data from another embedder is refused with a message naming engram reindex, and reindex fixes it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "engram-reindex-"));
    const oldEmbedder = new FakeEmbedder(64, "old-model");
    const first = EmbeddedStore.open({ dataDir, dim: 64 });
    await ensureEmbedderIdentity(first, oldEmbedder);
    const core = createCore({ store: first, embedder: oldEmbedder, limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
    for (const content of ["postgres for billing", "deploy on tuesdays", "kebab-case file names"]) {
      await core.storeMemory(ANONYMOUS, { content, scope: "repo:r", source: "user-said", category: "decision" });
    }
    await first.close();

    const newEmbedder = new FakeEmbedder(32, "new-model");
    const second = EmbeddedStore.open({ dataDir, dim: 32 });
    const refused = await ensureEmbedderIdentity(second, newEmbedder).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StartupError);
    expect((refused as Error).message).toContain("engram reindex");

    const preview = await reindex(second, newEmbedder, { apply: false, dataDir });
    expect(preview).toMatchObject({ dry_run: true, records: 3, reembedded: 0, from_identity: "local:old-model:64", to_identity: "local:new-model:32" });
    const applied = await reindex(second, newEmbedder, { apply: true, dataDir });
    expect(applied).toMatchObject({ dry_run: false, records: 3, reembedded: 3 });
    await expect(ensureEmbedderIdentity(second, newEmbedder)).resolves.toBeUndefined();
    const core2 = createCore({ store: second, embedder: newEmbedder, limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
    const hits = await core2.searchMemories(ANONYMOUS, { query: "which database for billing", scope: "repo:r", k: 1 }, "connect");
    expect(hits.memories[0]?.summary).toBe("postgres for billing");
    await second.close();
  });

  /** A store of six records written by `old`; closed by the caller. */
  async function storeOf(oldEmbedder: FakeEmbedder): Promise<{ dataDir: string; store: EmbeddedStore }> {
    const dataDir = mkdtempSync(join(tmpdir(), "engram-reindex-"));
    const store = EmbeddedStore.open({ dataDir, dim: oldEmbedder.identity.dim });
    await ensureEmbedderIdentity(store, oldEmbedder);
    const core = createCore({ store, embedder: oldEmbedder, limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
    for (let i = 0; i < 6; i++) await core.storeMemory(ANONYMOUS, { content: `note ${i}`, scope: "repo:r", source: "user-said", category: "decision" });
    return { dataDir, store };
  }

  /** Answers its first `answers` calls, then fails as an unreachable endpoint does. */
  function failingAfter(answers: number, dim: number, model: string): FakeEmbedder {
    const e = new FakeEmbedder(dim, model);
    const real = e.embedDocuments.bind(e);
    e.embedDocuments = async (texts) => {
      if (e.calls >= answers) throw new EmbedderError("unreachable");
      return real(texts);
    };
    return e;
  }

  it("an embedder that fails on the first batch changes nothing: no marker, and the old embedder still starts", async () => {
    const oldEmbedder = new FakeEmbedder(64, "old-model");
    const { dataDir, store } = await storeOf(oldEmbedder);
    try {
      const before = await store.getMeta(META_EMBEDDER_IDENTITY);
      await expect(reindex(store, failingAfter(0, 32, "new-model"), { apply: true, batch: 2, dataDir })).rejects.toThrow("unreachable");
      expect(await store.getMeta(META_EMBEDDER_IDENTITY)).toBe(before);
      expect(await store.getMeta("reindex_from")).toBeUndefined();
      await expect(ensureEmbedderIdentity(store, oldEmbedder)).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("a run stopped part-way is refused with the ways out that work, and a run on the original embedder takes the data back", async () => {
    const oldEmbedder = new FakeEmbedder(64, "old-model");
    const { dataDir, store } = await storeOf(oldEmbedder);
    try {
      await expect(reindex(store, failingAfter(2, 32, "new-model"), { apply: true, batch: 2, dataDir })).rejects.toThrow("unreachable");
      const refused = (await ensureEmbedderIdentity(store, oldEmbedder).catch((e: unknown) => e)) as Error;
      expect(refused).toBeInstanceOf(StartupError);
      expect(refused.message).toBe(
        "the data is part-way through `engram reindex` to embedder local:new-model:32 (a run is under way, or one stopped before it finished); " +
          "until one finishes no embedder configuration can serve it, the original one included; run `engram reindex --apply` again with the " +
          "configuration for local:new-model:32 to finish it, or with this one to re-embed the data for local:old-model:64 instead",
      );
      // What the message offers for the original embedder works: only the four records already moved are embedded again.
      const back = await reindex(store, oldEmbedder, { apply: true, batch: 2, dataDir });
      expect(back).toMatchObject({ from_identity: "local:old-model:64", records: 6, pending: 4, reembedded: 4, already_done: 2 });
      await expect(ensureEmbedderIdentity(store, oldEmbedder)).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
