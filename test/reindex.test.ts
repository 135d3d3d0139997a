import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureEmbedderIdentity, StartupError } from "../src/app.js";
import { createCore, DEFAULT_LIMITS, ANONYMOUS, silentLogger } from "../src/core/index.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { reindex } from "../src/operator/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";

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
});
