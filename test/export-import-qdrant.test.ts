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

/** The CLI's embedder when no OpenAI endpoint is configured. */
const LOCAL = "local:universal-sentence-encoder-en:512";

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

  it("a file refused in its first batch sends Qdrant nothing: no collection, no alias, exit 2", async () => {
    const alias = QdrantStore.uniqueCollection("import-refused");
    const bad = join(dir, "bad-first-batch.jsonl");
    const broken = JSON.parse(exported[2]!) as Line;
    delete broken.record.category;
    writeFileSync(bad, `${[exported[0], exported[1], JSON.stringify(broken)].join("\n")}\n`);
    const before = fake.requests.length;
    const run = await runEngram(["import", bad], { ENGRAM_QDRANT_URL: fake.url, ENGRAM_QDRANT_COLLECTION: alias, ENGRAM_DATA_DIR: join(dir, "unused") });
    expect(run).toEqual({
      code: EXIT.usage,
      stdout: "",
      stderr: "engram: line 3: record.category is required; nothing from its batch on was written (0 record(s) imported before it)\n",
    });
    expect(fake.requests.length).toBe(before);
    expect(fake.state.aliases.has(alias)).toBe(false);
  });

  // Qdrant answering an import's write with a fault is no line's: 5 when it cannot take it now, 6 when it did not answer in time.
  it.each([
    [500, EXIT.unavailable, "unavailable: the store cannot accept writes now; retry later"],
    [504, EXIT.timeout, "the store did not answer in time"],
  ])("Qdrant answering the import's write with %i is exit %i, and says the batch may be partly written", async (status, exit, text) => {
    const alias = QdrantStore.uniqueCollection("import-fault");
    const env = { ENGRAM_QDRANT_URL: fake.url, ENGRAM_QDRANT_COLLECTION: alias, ENGRAM_DATA_DIR: join(dir, "unused") };
    // One record whose vector the CLI's embedder keeps: the write is the first thing it asks of Qdrant after the open.
    const keep = join(dir, `keep-${status}.jsonl`);
    const one = JSON.parse(exported[1]!) as Line & { vector: string };
    one.vector = Buffer.from(new Float32Array(512).fill(0.05).buffer).toString("base64");
    writeFileSync(keep, `${JSON.stringify({ embedder: LOCAL, format: "engram-export", vectors: true, version: 1 })}\n${JSON.stringify(one)}\n`);
    const fault = fake.faults.inject({ match: { operation: "upsert_points" }, fault: { kind: "status", status }, times: Number.POSITIVE_INFINITY });
    let run;
    try {
      run = await runEngram(["import", keep], env);
    } finally {
      fault.clear();
    }
    expect(run).toEqual({
      code: exit,
      stdout: "",
      stderr: `engram: ${text}; nothing after the batch from line 2 was written, and that batch may be partly written: importing the file again completes it (0 record(s) imported before it)\n`,
    });
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
