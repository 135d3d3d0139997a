/**
 * The two Store-port methods the lifecycle sweeps use (deleteMany and
 * neighbours), held to one behaviour on both stores: the embedded store in
 * a temporary data directory and the Qdrant store on the loopback fake
 * (every request checked against Qdrant's own schemas).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANONYMOUS } from "../src/model/subject.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { QdrantStore } from "../src/store/qdrant/index.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import { GATE_ON, type RecordQuery, type Store } from "../src/store/store.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";
import { startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

const DIM = 16;

/** A unit vector leaning towards axis `axis`, tilted a little towards `tilt` by `amount`. */
function vec(axis: number, tilt = (axis + 1) % DIM, amount = 0): Float32Array {
  const v = new Float32Array(DIM);
  v[axis] = 1;
  v[tilt] = amount;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const id = (i: number) => syntheticRecord(i).id;
const everyone = (extra: Partial<RecordQuery> = {}): RecordQuery => ({ subject: ANONYMOUS, allOwners: true, gate: GATE_ON, now: 1_900_000_000, ...extra });

/** Records 1-3 lean to axis 0 (2 nearest to 1, then 3), 4 to axis 5; 3 sits in another scope; 6 is archived. */
const ROWS = [
  { i: 1, v: vec(0), scope: "repo:a" },
  { i: 2, v: vec(0, 1, 0.1), scope: "repo:a" },
  { i: 3, v: vec(0, 2, 0.4), scope: "repo:b" },
  { i: 4, v: vec(5), scope: "repo:a" },
  { i: 5, v: vec(9), scope: "repo:a" },
  { i: 6, v: vec(0, 3, 0.05), scope: "repo:a", archived: true },
];

type Harness = { name: string; open: () => Promise<Store>; close: () => Promise<void> };

let fake: QdrantFake;
const dirs: string[] = [];

beforeAll(async () => {
  fake = await startQdrantFake({ warn: () => {} });
});

afterAll(async () => {
  expect(fake.schemaViolations).toEqual([]);
  await fake.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const harnesses: Harness[] = [
  {
    name: "embedded",
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), "engram-lifecycle-conf-"));
      dirs.push(dir);
      return EmbeddedStore.open({ dataDir: dir, dim: DIM });
    },
    close: async () => {},
  },
  {
    name: "qdrant (fake)",
    open: async () => QdrantStore.open({ url: fake.url, collection: QdrantStore.uniqueCollection("lifecycle"), dim: DIM }),
    close: async () => {},
  },
];

describe.each(harnesses)("the lifecycle port on $name", (h) => {
  let store: Store;

  beforeAll(async () => {
    store = await h.open();
    await store.importBatch(
      ROWS.map((r) => ({
        record: syntheticRecord(r.i, { scope: r.scope, ...(r.archived ? { archived_at: "2026-01-01T00:00:00.000Z" } : {}) }),
        vector: r.v,
        version: CURRENT_SCHEMA_VERSION,
      })),
    );
  });

  afterAll(async () => {
    await store.close();
    await h.close();
  });

  it("neighbours finds each record's nearest by its stored vector, best first, itself and filtered-out records excluded", async () => {
    const got = await store.neighbours([id(1), id(4)], 2, everyone());
    expect(got.get(id(1))!.map((n) => n.id)).toEqual([id(2), id(3)]);
    expect(got.get(id(1))![0]!.score).toBeGreaterThan(got.get(id(1))![1]!.score);
    expect(got.get(id(1))![0]!.score).toBeCloseTo(1 / Math.hypot(1, 0.1), 4);
    expect(got.get(id(4))).toHaveLength(2);
    expect(got.get(id(4))!.map((n) => n.id)).not.toContain(id(4));
  });

  it("neighbours keeps to the query's scope and answers nothing for an id that names no record", async () => {
    const got = await store.neighbours([id(1), id(99)], 3, everyone({ scope: "repo:a" }));
    expect(got.get(id(1))!.map((n) => n.id)).toEqual([id(2), expect.any(String), expect.any(String)]);
    expect(got.get(id(1))!.map((n) => n.id)).not.toContain(id(3));
    expect(got.get(id(1))!.map((n) => n.id)).not.toContain(id(6));
    expect(got.has(id(99))).toBe(false);
  });

  // The embedded store's own index switches to a graph past a few thousand records; Qdrant's is Qdrant's.
  it.runIf(h.name === "embedded")("neighbours on a store large enough for the vector graph still finds planted twins, never the record itself", async () => {
    const big = await h.open();
    try {
      let seed = 11;
      const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) - 0.5;
      const rows = Array.from({ length: 5000 }, (_, n) => {
        const v = new Float32Array(DIM).map(() => rand());
        return { record: syntheticRecord(1000 + n), vector: v, version: CURRENT_SCHEMA_VERSION };
      });
      // Every 1000th record gets a near-copy of the record before it.
      for (const n of [999, 1999, 2999]) rows[n]!.vector = rows[n - 1]!.vector.map((x, d) => x + (d === 0 ? 0.001 : 0));
      await big.importBatch(rows);
      const twins = [998, 1998, 2998].map((n) => id(1000 + n));
      const got = await big.neighbours(twins, 3, everyone());
      for (const [i, n] of [998, 1998, 2998].entries()) {
        expect(got.get(twins[i]!)![0]!.id).toBe(id(1000 + n + 1));
        expect(got.get(twins[i]!)!.map((x) => x.id)).not.toContain(twins[i]);
      }
      // One record alone takes the same path.
      expect((await big.neighbours([twins[1]!], 1, everyone())).get(twins[1]!)!.map((x) => x.id)).toEqual([id(2999)]);
    } finally {
      await big.close();
    }
  });

  it("deleteMany deletes exactly the named records, any owner, and counts only those that existed", async () => {
    expect(await store.deleteMany([id(5), id(6), id(99)])).toBe(2);
    expect(await store.getRaw(id(5))).toBeUndefined();
    expect(await store.getRaw(id(6))).toBeUndefined();
    expect(await store.getRaw(id(4))).toBeDefined();
    expect(await store.deleteMany([])).toBe(0);
    expect(await store.deleteMany([id(5)])).toBe(0);
    const after = await store.neighbours([id(4)], 10, everyone({ gate: null }));
    expect(after.get(id(4))!.map((n) => n.id).sort()).toEqual([id(1), id(2), id(3)]);
  });
});
