/**
 * Moving a deployment from the embedded store to Qdrant: `engram export` on
 * the embedded store, then `engram import` with ENGRAM_QDRANT_URL set writes
 * every record, lifecycle included, into the Qdrant collection a server
 * would serve (here the loopback fake, every request checked against
 * Qdrant's own schemas).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/argerror/index.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { portableFixture } from "./helpers/portable-fixture.js";
import type { TestServer } from "./helpers/engram-server.js";
import { runEngram } from "./helpers/run-engram.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

type Line = { record: Record<string, unknown> };

let server: TestServer;
let fake: QdrantFake;
let dir: string;
let exported: string[];

beforeAll(async () => {
  ({ server } = await portableFixture());
  dir = mkdtempSync(join(tmpdir(), "engram-to-qdrant-"));
  const out = await runEngram(["export", "--all-owners"], { ENGRAM_DATA_DIR: server.dataDir });
  expect(out.code).toBe(0);
  exported = out.stdout.split("\n").filter((l) => l !== "");
  writeFileSync(join(dir, "export.jsonl"), `${exported.join("\n")}\n`);
  fake = await startQdrantFake({ warn: () => {} });
});

afterAll(async () => {
  await fake?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("engram import with ENGRAM_QDRANT_URL", () => {
  it("writes every exported record into the Qdrant collection, lifecycle and links included", async () => {
    const run = await runEngram(["import", join(dir, "export.jsonl"), "--output", "json"], {
      ENGRAM_QDRANT_URL: fake.url,
      ENGRAM_DATA_DIR: join(dir, "unused"),
    });
    expect(run.code).toBe(0);
    const records = exported.slice(1).map((l) => (JSON.parse(l) as Line).record);
    const report = JSON.parse(run.stdout) as { imported: number; reembedded: number };
    // The fixture's server embeds with a 64-d test embedder; the CLI's default is the local model, so every record is re-embedded.
    expect(report).toMatchObject({ imported: records.length, reembedded: records.length });

    const qd = await QdrantStore.open({ url: fake.url, dim: 512 });
    try {
      for (const want of records) {
        const got = (await qd.getRaw(String(want.id))) as unknown as Record<string, unknown> | undefined;
        const { embedder_identity: _a, ...wantRest } = want;
        expect(got).toBeDefined();
        const { embedder_identity: gotIdentity, ...gotRest } = got!;
        expect(gotRest).toEqual(wantRest);
        expect(gotIdentity).toBe("local:universal-sentence-encoder-en:512");
      }
      const lifecycle = records.filter((r) => r.archived_at || r.superseded_by || r.not_before);
      expect(lifecycle.length).toBeGreaterThanOrEqual(3);
    } finally {
      await qd.close();
    }
    expect(fake.schemaViolations).toEqual([]);
  });

  it("importing the same file again leaves the collection as one import did", async () => {
    const qd = await QdrantStore.open({ url: fake.url, dim: 512 });
    const ids = exported.slice(1).map((l) => String((JSON.parse(l) as Line).record.id));
    const before = await Promise.all(ids.map((id) => qd.getRaw(id)));
    await qd.close();
    const run = await runEngram(["import", join(dir, "export.jsonl"), "--output", "json"], {
      ENGRAM_QDRANT_URL: fake.url,
      ENGRAM_DATA_DIR: join(dir, "unused"),
    });
    expect(run.code).toBe(0);
    const again = await QdrantStore.open({ url: fake.url, dim: 512 });
    try {
      const after = await Promise.all(ids.map((id) => again.getRaw(id)));
      expect(after).toEqual(before);
    } finally {
      await again.close();
    }
  });

  it("an unreachable Qdrant is exit 5 and says the store cannot be reached, naming nothing of the file", async () => {
    const probe = await QdrantStore.open({ url: "http://127.0.0.1:1", dim: 512 }).catch((e: unknown) => e);
    const run = await runEngram(["import", join(dir, "export.jsonl")], {
      ENGRAM_QDRANT_URL: "http://127.0.0.1:1",
      ENGRAM_DATA_DIR: join(dir, "unused"),
    });
    expect(run.code).toBe(EXIT.unavailable);
    expect(run.stderr.trim()).toBe(`engram: ${(probe as Error).message}`);
    expect(run.stderr).not.toContain("export.jsonl");
  });
});
