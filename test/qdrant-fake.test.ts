import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { QdrantClient, QdrantClientResourceExhaustedError, QdrantClientTimeoutError } from "@qdrant/js-client-rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findSchemaDir, OUT_OF_DISK_MESSAGE, startQdrantFake, type QdrantFake } from "./qdrant-fake/index.js";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const C = "00000000-0000-4000-8000-00000000000c";
const D = "00000000-0000-4000-8000-00000000000d";

/** The useful text of a client error lives in `.data.status.error`. */
async function qdrantError(p: Promise<unknown>): Promise<{ status: number; error: string }> {
  try {
    await p;
  } catch (e) {
    const err = e as { status?: number; data?: { status?: { error?: string } } };
    return { status: err.status ?? -1, error: err.data?.status?.error ?? String(e) };
  }
  throw new Error("expected the request to fail");
}

let fake: QdrantFake;
let client: QdrantClient;

async function createMemories(name = "mem_v1", strict = true): Promise<void> {
  await client.createCollection(name, {
    vectors: { dense: { size: 4, distance: "Cosine" } },
    sparse_vectors: { lexical: { modifier: "idf" } },
    ...(strict
      ? { strict_mode_config: { enabled: true, unindexed_filtering_retrieve: false, unindexed_filtering_update: false } }
      : {}),
  });
  await client.updateCollectionAliases({ actions: [{ create_alias: { collection_name: name, alias_name: "mem" } }] });
  await client.createPayloadIndex("mem", { field_name: "owner", field_schema: { type: "keyword", is_tenant: true }, wait: true });
  await client.createPayloadIndex("mem", { field_name: "tags", field_schema: "keyword", wait: true });
  await client.createPayloadIndex("mem", { field_name: "superseded_by", field_schema: "keyword", wait: true });
  await client.createPayloadIndex("mem", { field_name: "created_at", field_schema: "datetime", wait: true });
  await client.createPayloadIndex("mem", { field_name: "n", field_schema: "integer", wait: true });
}

const point = (id: string, payload: Record<string, unknown>, dense = [1, 0, 0, 0], lexical = { indices: [1], values: [1] }) => ({
  id,
  vector: { dense, lexical },
  payload,
});

/** Qdrant's schemas live outside the repo (../shared/reference/qdrant); a fresh clone elsewhere has none. */
const SCHEMAS_PRESENT = existsSync(join(findSchemaDir(), "openapi-v1.17.x.json")) && existsSync(join(findSchemaDir(), "openapi-v1.19.x.json"));
if (!SCHEMAS_PRESENT) console.warn(`qdrant-fake schema tests skipped: no Qdrant OpenAPI schemas at ${findSchemaDir()}`);

beforeEach(async () => {
  fake = await startQdrantFake({ version: "1.17.1" });
  client = new QdrantClient({ url: fake.url, checkCompatibility: false });
});

afterEach(async () => {
  // Every request the real client sent in a test must satisfy Qdrant's own
  // schemas; without the schema folder the fake said (once) that it skipped.
  if (fake.validationSkipped === undefined) expect(fake.schemaViolations).toEqual([]);
  await fake.close();
});

describe("collections and aliases", () => {
  it("reports the configured server version at GET /", async () => {
    expect((await client.versionInfo()).version).toBe("1.17.1");
  });

  it("creates a collection reachable through its alias, with its vectors, indexes and metadata", async () => {
    await createMemories();
    await client.updateCollection("mem", { metadata: { embedder: "e1", dim: 4 } });
    const info = await client.getCollection("mem");
    expect(info.config.params.vectors).toEqual({ dense: { size: 4, distance: "Cosine" } });
    expect(info.config.params.sparse_vectors).toEqual({ lexical: { modifier: "idf" } });
    expect(info.config.metadata).toEqual({ embedder: "e1", dim: 4 });
    expect(info.payload_schema.owner).toMatchObject({ data_type: "keyword", params: { type: "keyword", is_tenant: true } });
    expect(info.payload_schema.created_at?.data_type).toBe("datetime");
    expect(await client.collectionExists("mem_v1")).toEqual({ exists: true });
    expect((await client.getAliases()).aliases).toEqual([{ alias_name: "mem", collection_name: "mem_v1" }]);
  });

  it("answers a second create with 409 Collection `x` already exists!", async () => {
    await createMemories();
    expect(await qdrantError(client.createCollection("mem_v1", { vectors: { size: 4, distance: "Cosine" } }))).toEqual({
      status: 409,
      error: "Wrong input: Collection `mem_v1` already exists!",
    });
  });

  it("answers 404 for a collection that does not exist", async () => {
    expect(await qdrantError(client.getCollection("nope"))).toEqual({
      status: 404,
      error: "Not found: Collection `nope` doesn't exist!",
    });
  });

  it("switches an alias atomically from one collection to another", async () => {
    await createMemories("mem_v1", false);
    await client.upsert("mem", { wait: true, points: [point(A, { v: 1 })] });
    await client.createCollection("mem_v2", { vectors: { dense: { size: 4, distance: "Cosine" } } });
    await client.updateCollectionAliases({
      actions: [
        { delete_alias: { alias_name: "mem" } },
        { create_alias: { collection_name: "mem_v2", alias_name: "mem" } },
      ],
    });
    expect((await client.count("mem")).count).toBe(0);
    expect((await client.count("mem_v1")).count).toBe(1);
  });
});

describe("writes", () => {
  beforeEach(() => createMemories());

  it("insert_only leaves an existing point unchanged and still inserts a new one", async () => {
    await client.upsert("mem", { wait: true, points: [point(A, { content: "first" })] });
    await client.upsert("mem", {
      wait: true,
      update_mode: "insert_only",
      points: [point(A, { content: "second" }), point(B, { content: "new" })],
    });
    const got = await client.retrieve("mem", { ids: [A, B] });
    expect(got.map((p) => [p.id, p.payload?.content])).toEqual([
      [A, "first"],
      [B, "new"],
    ]);
  });

  it("a server older than 1.17 silently turns insert_only into an overwrite", async () => {
    const old = await startQdrantFake({ version: "1.16.0" });
    try {
      const c = new QdrantClient({ url: old.url, checkCompatibility: false });
      await c.createCollection("m", { vectors: { dense: { size: 4, distance: "Cosine" } } });
      await c.upsert("m", { wait: true, points: [{ id: A, vector: { dense: [1, 0, 0, 0] }, payload: { v: 1 } }] });
      await c.upsert("m", { wait: true, update_mode: "insert_only", points: [{ id: A, vector: { dense: [1, 0, 0, 0] }, payload: { v: 2 } }] });
      expect((await c.retrieve("m", { ids: [A] }))[0]?.payload).toEqual({ v: 2 });
      expect((await c.versionInfo()).version).toBe("1.16.0");
    } finally {
      await old.close();
    }
  });

  it("update_filter replaces an existing point only when it matches the filter", async () => {
    await client.upsert("mem", { wait: true, points: [point(A, { owner: "o", n: 1 }), point(B, { owner: "o", n: 5 })] });
    const onlyIfN1 = { must: [{ key: "n", match: { value: 1 } }] };
    await client.upsert("mem", { wait: true, update_filter: onlyIfN1, points: [point(A, { owner: "o", n: 2 })] });
    await client.upsert("mem", { wait: true, update_filter: onlyIfN1, points: [point(B, { owner: "o", n: 6 })] });
    const got = await client.retrieve("mem", { ids: [A, B] });
    expect(got.map((p) => p.payload?.n)).toEqual([2, 5]);
  });

  it("set_payload with both points and filter applies to the points and ignores the filter", async () => {
    await client.upsert("mem", { wait: true, points: [point(A, { owner: "x" }), point(B, { owner: "y" })] });
    await client.setPayload("mem", { payload: { marked: true }, points: [A], filter: { must: [{ key: "owner", match: { value: "y" } }] } });
    const got = await client.retrieve("mem", { ids: [A, B] });
    expect(got.map((p) => p.payload?.marked ?? null)).toEqual([true, null]);
  });

  it("set_payload on a point that does not exist answers 404", async () => {
    expect((await qdrantError(client.setPayload("mem", { payload: { a: 1 }, points: [C] }))).status).toBe(404);
  });

  it("a vector of the wrong size is refused with Qdrant's wording", async () => {
    expect(await qdrantError(client.upsert("mem", { wait: true, points: [point(A, {}, [1, 0, 0])] }))).toEqual({
      status: 400,
      error: "Wrong input: Vector dimension error: expected dim: 4, got 3",
    });
  });
});

describe("reads", () => {
  beforeEach(async () => {
    await createMemories();
    await client.upsert("mem", {
      wait: true,
      points: [
        point(A, { owner: "o", tags: ["x"], created_at: "2024-01-03T00:00:00Z", superseded_by: "" }),
        point(B, { owner: "o", tags: [], created_at: "2024-01-01T00:00:00Z" }),
        point(C, { owner: "o", tags: null, created_at: "2024-01-02T00:00:00Z" }),
        point(D, { owner: "p", created_at: "2024-01-02T00:00:00Z" }),
      ],
    });
  });

  it("pages a scroll by offset and reports the next page's first id", async () => {
    const first = await client.scroll("mem", { limit: 3 });
    expect(first.points.map((p) => p.id)).toEqual([A, B, C]);
    expect(first.next_page_offset).toBe(D);
    const second = await client.scroll("mem", { limit: 3, offset: first.next_page_offset! });
    expect(second.points.map((p) => p.id)).toEqual([D]);
    expect(second.next_page_offset).toBeNull();
  });

  it("orders by a datetime index, starts at start_from and returns no next_page_offset", async () => {
    const page = await client.scroll("mem", {
      limit: 10,
      order_by: { key: "created_at", direction: "desc", start_from: "2024-01-02T00:00:00Z" },
    });
    expect(page.points.map((p) => p.id)).toEqual([C, D, B]);
    expect(page.next_page_offset ?? null).toBeNull();
  });

  it("refuses order_by with an offset, and order_by on a key without a range index", async () => {
    const withOffset = await qdrantError(client.scroll("mem", { order_by: { key: "created_at" }, offset: A }));
    expect(withOffset.status).toBe(400);
    expect(withOffset.error).toContain("Cannot use an `offset` when using `order_by`");
    const noIndex = await qdrantError(client.scroll("mem", { order_by: { key: "owner" } }));
    expect(noIndex.status).toBe(400);
    expect(noIndex.error).toContain("No range index for `order_by` key: `owner`");
  });

  it("is_empty holds for a missing key, null and [] but not for an empty string", async () => {
    const empty = await client.scroll("mem", { filter: { must: [{ is_empty: { key: "tags" } }] } });
    expect(empty.points.map((p) => p.id)).toEqual([B, C, D]);
    const noSuperseded = await client.count("mem", { filter: { must: [{ is_empty: { key: "superseded_by" } }] } });
    expect(noSuperseded.count).toBe(3);
  });

  it("an empty should matches nothing; should with conditions matches any of them", async () => {
    expect((await client.count("mem", { filter: { should: [] } })).count).toBe(0);
    const either = await client.count("mem", {
      filter: { should: [{ key: "tags", match: { value: "x" } }, { key: "owner", match: { value: "p" } }] },
    });
    expect(either.count).toBe(2);
  });

  it("combines must_not, match any/except, datetime range and has_id", async () => {
    const got = await client.scroll("mem", {
      filter: {
        must: [{ key: "created_at", range: { gte: "2024-01-02T00:00:00Z" } }, { key: "owner", match: { any: ["o", "p"] } }],
        must_not: [{ has_id: [D] }],
      },
    });
    expect(got.points.map((p) => p.id)).toEqual([A, C]);
    expect((await client.count("mem", { filter: { must: [{ key: "owner", match: { except: ["o"] } }] } })).count).toBe(1);
  });

  it("strict mode refuses a filter on an unindexed key with a 400", async () => {
    expect(await qdrantError(client.count("mem", { filter: { must: [{ key: "scope", match: { value: "s" } }] } }))).toEqual({
      status: 400,
      error:
        'Bad request: Index required but not found for "scope" of one of the following types: [keyword, uuid]. ' +
        "Help: Create an index for this key or use a different filter.",
    });
  });

  it("returns payload include/exclude selections", async () => {
    const [inc] = await client.retrieve("mem", { ids: [A], with_payload: { include: ["owner"] } });
    expect(inc?.payload).toEqual({ owner: "o" });
    const [exc] = await client.retrieve("mem", { ids: [A], with_payload: { exclude: ["tags", "created_at", "superseded_by"] } });
    expect(exc?.payload).toEqual({ owner: "o" });
  });
});

describe("the Query API", () => {
  beforeEach(async () => {
    await createMemories();
    await client.upsert("mem", {
      wait: true,
      points: [
        point(A, { owner: "o" }, [1, 0, 0, 0], { indices: [1], values: [1] }),
        point(B, { owner: "o" }, [0.6, 0.8, 0, 0], { indices: [1, 2], values: [1, 1] }),
        point(C, { owner: "p" }, [0, 0, 1, 0], { indices: [3], values: [1] }),
      ],
    });
  });

  it("ranks dense candidates by cosine similarity", async () => {
    const res = await client.query("mem", { query: [2, 0, 0, 0], using: "dense", limit: 3, with_payload: true });
    expect(res.points.map((p) => p.id)).toEqual([A, B, C]);
    expect(res.points.map((p) => p.score)).toEqual([1, expect.closeTo(0.6, 6), 0]);
    expect(res.points[0]?.payload).toEqual({ owner: "o" });
  });

  it("weights sparse terms by IDF over the collection, ln((N - n + 0.5) / (n + 0.5) + 1)", async () => {
    const idf = (n: number) => Math.log((3 - n + 0.5) / (n + 0.5) + 1);
    const res = await client.query("mem", { query: { indices: [1, 2], values: [1, 1] }, using: "lexical", limit: 10 });
    // Term 1 is in two of three points, term 2 in one; C shares no term and is not a candidate.
    expect(res.points.map((p) => p.id)).toEqual([B, A]);
    expect(res.points[0]?.score).toBeCloseTo(idf(2) + idf(1), 5);
    expect(res.points[1]?.score).toBeCloseTo(idf(2), 5);
  });

  it("fuses dense and sparse prefetches with RRF (k = 2) under a filter and score threshold", async () => {
    const res = await client.query("mem", {
      prefetch: [
        { query: [1, 0, 0, 0], using: "dense", limit: 10 },
        { query: { indices: [2], values: [1] }, using: "lexical", limit: 10 },
      ],
      query: { fusion: "rrf" },
      filter: { must: [{ key: "owner", match: { value: "o" } }] },
      limit: 10,
    });
    // Dense ranks A before B (C is filtered out); only B has term 2. Fusion lifts B over A.
    expect(res.points.map((p) => p.id)).toEqual([B, A]);
    expect(res.points.map((p) => p.score)).toEqual([1 / 3 + 1 / 2, 1 / 2]);
    const thresholded = await client.query("mem", { query: [1, 0, 0, 0], using: "dense", score_threshold: 0.5 });
    expect(thresholded.points.map((p) => p.id)).toEqual([A, B]);
  });
});

describe("schema validation", () => {
  it.skipIf(!SCHEMAS_PRESENT)("answers a malformed body 400 and records it against both the 1.17 and 1.19 schemas", async () => {
    const res = await fetch(`${fake.url}/collections/anything/points?wait=true`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ points: [{ id: "not-a-uuid", vector: "dense" }] }),
    });
    expect(res.status).toBe(400);
    expect(fake.schemaViolations.map((v) => [v.schema, v.where])).toEqual([
      ["1.17", "body"],
      ["1.19", "body"],
    ]);
    // The afterEach asserts zero violations; this test made them on purpose.
    (fake.schemaViolations as unknown[]).length = 0;
  });

  it.skipIf(!SCHEMAS_PRESENT)("catches a malformed query string the client lets through", async () => {
    expect((await fetch(`${fake.url}/collections/x/points/scroll?timeout=soon`, { method: "POST", body: "{}" })).status).toBe(400);
    expect(fake.schemaViolations.map((v) => [v.schema, v.where])).toEqual([
      ["1.17", "query"],
      ["1.19", "query"],
    ]);
    (fake.schemaViolations as unknown[]).length = 0;
  });

  it("without the schema folder it serves unvalidated and says so in one warning line", async () => {
    const lines: string[] = [];
    const f = await startQdrantFake({ schemaDir: "/nonexistent/qdrant-schemas", warn: (l) => lines.push(l) });
    try {
      expect(f.validationSkipped).toContain("Qdrant OpenAPI schemas not found");
      expect(lines).toEqual([`qdrant fake: schema validation SKIPPED: ${f.validationSkipped}`]);
      const res = await fetch(`${f.url}/collections/x/points/scroll?timeout=soon`, { method: "POST", body: "{}" });
      expect(res.status).toBe(404);
      expect(f.schemaViolations).toEqual([]);
    } finally {
      await f.close();
    }
  });

  it("a 1.19 fake has no /points/search", async () => {
    const f = await startQdrantFake({ version: "1.19.0" });
    try {
      const res = await fetch(`${f.url}/collections/x/points/search`, { method: "POST", body: JSON.stringify({ vector: [1], limit: 1 }) });
      expect(res.status).toBe(404);
    } finally {
      await f.close();
    }
  });
});

describe("fault injection", () => {
  beforeEach(() => createMemories("mem_v1", false));

  it("injects a 500 on one route for the next request only", async () => {
    fake.faults.inject({ match: { operation: "count_points" }, fault: { kind: "status", status: 500 } });
    expect((await qdrantError(client.count("mem"))).status).toBe(500);
    expect((await client.count("mem")).count).toBe(0);
  });

  it("a 429 surfaces as QdrantClientResourceExhaustedError with retry_after", async () => {
    fake.faults.nextRequests(1, { kind: "rate-limited", retryAfterSeconds: 3 });
    const err = await client.count("mem").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QdrantClientResourceExhaustedError);
    expect((err as QdrantClientResourceExhaustedError).retry_after).toBe(3);
  });

  it("reports out of disk on writes the way Qdrant does, and lets reads through", async () => {
    fake.faults.inject({ fault: { kind: "out-of-disk" }, times: Infinity });
    expect(await qdrantError(client.upsert("mem", { wait: true, points: [point(A, {})] }))).toEqual({
      status: 500,
      error: OUT_OF_DISK_MESSAGE,
    });
    expect((await client.count("mem")).count).toBe(0);
    fake.faults.clear();
  });

  it("a hung response trips the client's timeout", async () => {
    const impatient = new QdrantClient({ url: fake.url, checkCompatibility: false, timeout: 300 });
    fake.faults.inject({ match: { operation: "scroll_points" }, fault: { kind: "hang" } });
    await expect(impatient.scroll("mem")).rejects.toBeInstanceOf(QdrantClientTimeoutError);
  });

  it("a refused connection fails the request until the fake accepts again", async () => {
    await fake.refuseConnections();
    const codeOf = async () => ((await client.count("mem").catch((e: unknown) => e)) as { cause?: { code?: string } }).cause?.code;
    // The first try may still pick the pooled socket the fake just dropped; a fresh dial is refused.
    expect(["ECONNREFUSED", "UND_ERR_SOCKET"]).toContain(await codeOf());
    expect(await codeOf()).toBe("ECONNREFUSED");
    await fake.acceptConnections();
    expect((await client.count("mem")).count).toBe(0);
  });
});

describe("interleaving", () => {
  beforeEach(() => createMemories("mem_v1", false));

  it("holds store A's insert until store B's insert has landed, so A's insert_only finds B's point", async () => {
    const storeA = new QdrantClient({ url: fake.url, checkCompatibility: false });
    const storeB = new QdrantClient({ url: fake.url, checkCompatibility: false });
    const writtenBy = (w: string) => (r: { operation: string; body: unknown }) =>
      r.operation === "upsert_points" && JSON.stringify(r.body).includes(`"writer":"${w}"`);
    const hold = fake.holds.hold(writtenBy("A"));
    const aDone = storeA.upsert("mem", { wait: true, update_mode: "insert_only", points: [point(A, { writer: "A" })] });
    await hold.reached;
    await storeB.upsert("mem", { wait: true, update_mode: "insert_only", points: [point(A, { writer: "B" })] });
    hold.release();
    await aDone;
    expect((await client.retrieve("mem", { ids: [A] }))[0]?.payload).toEqual({ writer: "B" });
    const order = fake.requests.filter((r) => r.operation === "upsert_points").map((r) => (r.status === 200 ? "ok" : "?"));
    expect(order).toEqual(["ok", "ok"]);
  });

  it("a before-response hold lands the write but withholds the answer", async () => {
    const hold = fake.holds.hold({ operation: "upsert_points" }, { phase: "before-response" });
    const pending = client.upsert("mem", { wait: true, points: [point(B, { v: 1 })] });
    await hold.reached;
    // Hold reached after apply: a second client already sees the point.
    expect((await client.count("mem")).count).toBe(1);
    hold.release();
    expect((await pending).status).toBe("completed");
  });
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function firstLine(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise<string>((r) => createInterface({ input: child.stdout! }).once("line", r));
}

describe("npm run qdrant:fake", () => {
  it("prints exactly the listening line and serves on the given port", async () => {
    const port = await freePort();
    const child = spawn("npm", ["run", "--silent", "qdrant:fake", "--", "--port", String(port)], {
      stdio: ["ignore", "pipe", "inherit"],
      detached: true,
    });
    const exited = new Promise((r) => child.on("exit", r));
    try {
      expect(await firstLine(child)).toBe(`qdrant fake listening on http://127.0.0.1:${port}`);
      const c = new QdrantClient({ url: `http://127.0.0.1:${port}`, checkCompatibility: false });
      expect((await c.versionInfo()).version).toBe("1.17.1");
    } finally {
      // npm, sh, tsx and node share the group this test started: signal that group only.
      process.kill(-child.pid!, "SIGTERM");
    }
    await exited;
  });

  it("the fake's own process exits 0 on SIGTERM", async () => {
    const port = await freePort();
    // The script without npm in front, so the exit status is the fake's own.
    const child = spawn(process.execPath, ["--import", "tsx", "test/qdrant-fake/cli.ts", "--port", String(port)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    expect(await firstLine(child)).toBe(`qdrant fake listening on http://127.0.0.1:${port}`);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
