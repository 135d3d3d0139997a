/**
 * `engram import FILE` counts the file's lines for its progress total before
 * it reads them, a chunk at a time (an export of a million records is past
 * the longest string Node holds); the total is the records, the header
 * left out, whether or not the last line ends in a newline.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { identityKey, LOCAL_IDENTITY } from "../src/embed/index.js";
import { exportRecords } from "../src/operator/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { META_EMBEDDER_IDENTITY } from "../src/store/meta-keys.js";
import { runEngram } from "./helpers/run-engram.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";

const RECORDS = 3;

describe("engram import's progress total", { timeout: 60_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "engram-import-progress-"));
  let text = "";

  beforeAll(async () => {
    const store = EmbeddedStore.open({ dataDir: join(root, "source"), dim: LOCAL_IDENTITY.dim });
    await store.setMeta(META_EMBEDDER_IDENTITY, identityKey(LOCAL_IDENTITY));
    const vector = new Float32Array(LOCAL_IDENTITY.dim).fill(1 / Math.sqrt(LOCAL_IDENTITY.dim));
    store.transaction(() => {
      for (let i = 0; i < RECORDS; i++) store.writeRecord(syntheticRecord(i, { owner: "" }), vector);
    });
    await exportRecords(store, { allOwners: true, vectors: true, write: async (chunk) => void (text += chunk) });
    await store.close();
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("counts the records of a file whose last line ends in a newline, and of one whose last line does not", async () => {
    for (const [name, body] of [["with-newline.jsonl", text], ["without-newline.jsonl", text.replace(/\n$/, "")]] as const) {
      const file = join(root, name);
      writeFileSync(file, body);
      const run = await runEngram(["import", file], { ENGRAM_DATA_DIR: join(root, `into-${name}`), ENGRAM_PROGRESS: "always" });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(`engram: imported ${RECORDS}/${RECORDS} (`);
      expect(JSON.parse(run.stdout)).toMatchObject({ imported: RECORDS, reembedded: 0 });
    }
  });
});
