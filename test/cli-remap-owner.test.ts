/**
 * `engram migrate-remap-owner` and its deprecated alias `migrate-set-owner`
 * as the real binary, on the store this run tests (embedded, or a
 * collection on the Qdrant fake, every request schema-checked): the flag
 * refusals, the preview, each source, and a run SIGKILLed mid-way whose
 * rerun converges with no record lost or doubled. Outcomes are read back
 * through the Store port by id.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openServingStore, serve } from "../src/app.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { EXIT } from "../src/argerror/index.js";
import { MAX_OWNER_BYTES } from "../src/operator-cli/index.js";
import type { MemoryRecord } from "../src/model/record.js";
import { ANONYMOUS } from "../src/model/subject.js";
import type { RemapReport } from "../src/operator/remap-owner.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import { captureLog } from "./helpers/capture-log.js";
import { runEngram } from "./helpers/run-engram.js";
import { syntheticRecord } from "./helpers/synthetic-record.js";
import { embeddedOnly, fileQdrantFake, ON_QDRANT_FAKE, openTestStore } from "./helpers/test-store.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
/** The local embedder's dimension, which the operator verbs open the store with. */
const DIM = 512;
const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A record with `owner` as given; undefined writes no owner key at all (pre-isolation). */
function rec(i: number, owner: string | undefined): MemoryRecord {
  const r = syntheticRecord(i, { short_id: `R${String(i).padStart(9, "0")}` });
  r.content_bytes = Buffer.byteLength(r.content, "utf8");
  if (owner === undefined) delete r.owner;
  else r.owner = owner;
  return r;
}

async function seeded(records: MemoryRecord[]): Promise<Record<string, string>> {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-remap-"));
  dirs.push(dataDir);
  const { store, env } = await openTestStore({ dataDir, dim: DIM });
  const vector = new Float32Array(DIM);
  vector[0] = 1;
  for (let i = 0; i < records.length; i += 1000) {
    await store.importBatch(records.slice(i, i + 1000).map((record) => ({ record, vector, version: CURRENT_SCHEMA_VERSION })));
  }
  await store.close();
  return env;
}

/** Every record by id, each as stored, with its owner key as "(none)" when absent. */
async function byId(env: Record<string, string>): Promise<Map<string, MemoryRecord>> {
  const store = await openServingStore(env, DIM);
  try {
    const { records } = await store.list({ subject: ANONYMOUS, allOwners: true, gate: null, now: Math.floor(Date.now() / 1000) }, { order: "asc", limit: 100_000 });
    return new Map(records.map((r) => [r.id, r]));
  } finally {
    await store.close();
  }
}

/** A run that must succeed, with exactly `stderr`; its report. */
async function reportOf(args: string[], env: Record<string, string>, stderr = ""): Promise<RemapReport> {
  const run = await runEngram(args, env);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: EXIT.ok, stderr });
  return JSON.parse(run.stdout) as RemapReport;
}

const ownerOf = (r: MemoryRecord | undefined) => (r === undefined ? "(gone)" : r.owner === undefined ? "(none)" : r.owner);

function owners(all: Map<string, MemoryRecord>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of all.values()) out[ownerOf(r)] = (out[ownerOf(r)] ?? 0) + 1;
  return out;
}

/** A record as a caller sees it, without what a write restamps. */
function kept(r: MemoryRecord): Partial<MemoryRecord> {
  const { owner: _o, revision: _r, schema_version: _v, ...rest } = r;
  return rest;
}

describe("engram migrate-remap-owner", { timeout: 180_000 }, () => {
  // No store is opened, so the run on the Qdrant fake would repeat the embedded one word for word.
  it.skipIf(ON_QDRANT_FAKE)(embeddedOnly("refuses a missing, doubled or unchanged source, a missing --to, a zero --timeout, an empty --from, a target no caller could be and a bad --owner of the alias with exit 2 before opening anything", "no store is opened"), async () => {
    const nowhere = { ENGRAM_DATA_DIR: join(tmpdir(), "engram-remap-nowhere") };
    const runs = await Promise.all(
      [
        ["migrate-remap-owner", "--to", "bob"],
        ["migrate-remap-owner", "--from", "alice", "--from-anon", "--to", "bob"],
        ["migrate-remap-owner", "--from-missing"],
        ["migrate-remap-owner", "--from", "alice", "--to", "alice"],
        ["migrate-remap-owner", "--from-missing", "--to", "bob", "--timeout", "0"],
        ["migrate-set-owner"],
        ["migrate-set-owner", "--owner", "a\tb"],
        ["migrate-set-owner", "--owner", "x".repeat(MAX_OWNER_BYTES + 1)],
        // An empty --from (an unset variable) is not the anonymous bucket, and no caller could act as an owner of spaces.
        ["migrate-remap-owner", "--from", "", "--to", "bob"],
        ["migrate-remap-owner", "--from-missing", "--to", " "],
        ["migrate-set-owner", "--owner", "a b"],
      ].map((args) => runEngram(args, nowhere)),
    );
    expect(runs.map((r) => [r.code, r.stdout, r.stderr.replace(/^engram: migrate-set-owner is deprecated.*\n/, "")])).toEqual([
      [EXIT.usage, "", "field=from,from-missing,from-anon hint=required: one of --from <owner>, --from-missing (records with no owner) or --from-anon (the anonymous bucket) is required\n"],
      [EXIT.usage, "", "field=from,from-missing,from-anon hint=mutually_exclusive: give exactly one of --from <owner>, --from-missing and --from-anon\n"],
      [EXIT.usage, "", "field=to hint=required: --to <owner> is required: the owner the records move to\n"],
      [EXIT.usage, "", "field=from,to hint=not_applicable: --to must differ from the owner the records move from; nothing would change\n"],
      [EXIT.usage, "", "field=timeout hint=out_of_range: --timeout must be a positive duration such as 30s, 5m or 1h\n"],
      [EXIT.usage, "", "field=owner hint=required: --owner <owner> is required: the owner records with no owner get\n"],
      // The alias's own flag is the one named.
      [EXIT.usage, "", "field=owner hint=format: --owner must not contain control characters\n"],
      [EXIT.usage, "", `field=owner hint=too_long: --owner must be at most ${MAX_OWNER_BYTES} bytes\n`],
      [EXIT.usage, "", "field=from,from-missing,from-anon hint=required: one of --from <owner>, --from-missing (records with no owner) or --from-anon (the anonymous bucket) is required\n"],
      [EXIT.usage, "", "field=to hint=format: --to must not contain whitespace: no token or session could act as that owner\n"],
      [EXIT.usage, "", "field=owner hint=format: --owner must not contain whitespace: no token or session could act as that owner\n"],
    ]);
    // An OIDC owner's claim value is the identity provider's, spaces and all: it passes the flags and stops only at the missing store.
    const oidc = await runEngram(["migrate-remap-owner", "--from-missing", "--to", "3:sub:5:a b c"], nowhere);
    expect(oidc.stderr).toMatch(/^engram: no engram store in /);
  });

  it("previews without writing, then moves each source's records and only those, keeping every other field; a rerun finds nothing", async () => {
    const records = [...[0, 1, 2, 3, 4].map((i) => rec(i, undefined)), ...[5, 6, 7].map((i) => rec(i, "")), ...[8, 9, 10, 11].map((i) => rec(i, "alice")), rec(12, "bob"), rec(13, "bob")];
    const env = await seeded(records);
    const before = await byId(env);
    expect(owners(before)).toEqual({ "(none)": 5, "": 3, alice: 4, bob: 2 });

    const preview = await runEngram(["migrate-remap-owner", "--from-missing", "--to", "carol", "--output", "json"], env);
    expect({ code: preview.code, stderr: preview.stderr }).toEqual({ code: EXIT.ok, stderr: "" });
    expect(JSON.parse(preview.stdout)).toEqual({ from: "missing", dry_run: true, would_remap: 5, remapped: 0, failed: 0, passes: 0, backlog: 5 } satisfies RemapReport);
    expect(await byId(env)).toEqual(before);

    const alice = await reportOf(["migrate-remap-owner", "--from", "alice", "--to", "bob", "--apply", "--output", "json"], env);
    expect(alice).toEqual({ from: "owner", dry_run: false, would_remap: 4, remapped: 4, failed: 0, passes: 1, backlog: 0 });
    const anon = await reportOf(["migrate-remap-owner", "--from-anon", "--to", "carol", "--apply", "--batch-size", "2", "--output", "json"], env);
    expect(anon).toMatchObject({ from: "anonymous", remapped: 3, passes: 2, backlog: 0 });
    const legacy = await reportOf(["migrate-set-owner", "--owner", "dave", "--apply", "--output", "json"], env, "engram: migrate-set-owner is deprecated; use engram migrate-remap-owner --from-missing --to <owner>\n");
    expect(legacy).toMatchObject({ from: "missing", remapped: 5, backlog: 0 });

    const after = await byId(env);
    const expected = (r: MemoryRecord) => ({ undefined: "dave", "": "carol", alice: "bob", bob: "bob" })[String(r.owner) as "undefined"];
    expect([...after.keys()].sort()).toEqual(records.map((r) => r.id).sort());
    for (const r of records) {
      expect(ownerOf(after.get(r.id)), r.id).toBe(expected(r));
      expect(kept(after.get(r.id)!)).toEqual(kept(before.get(r.id)!));
    }

    const again = await reportOf(["migrate-remap-owner", "--from", "alice", "--to", "bob", "--apply", "--output", "json"], env);
    expect(again).toEqual({ from: "owner", dry_run: false, would_remap: 0, remapped: 0, failed: 0, passes: 0, backlog: 0 });
  });

  it("a --timeout that runs out stops the moves after a committed pass with exit 6, without repeating the value; one that runs out only as the last pass finishes stops nothing", async () => {
    // Any pass of conditional writes outlasts a 1ns budget on either store.
    const anon = Array.from({ length: 10 }, (_, i) => rec(i, ""));
    const missing = Array.from({ length: 30 }, (_, i) => rec(1000 + i, undefined));
    const env = await seeded([...anon, ...missing]);

    const finished = await reportOf(["migrate-remap-owner", "--from-anon", "--to", "bob", "--timeout", "1ns", "--apply", "--output", "json"], env);
    expect(finished).toEqual({ from: "anonymous", dry_run: false, would_remap: 10, remapped: 10, failed: 0, passes: 1, backlog: 0 });

    const stopped = await runEngram(["migrate-remap-owner", "--from-missing", "--to", "bob", "--batch-size", "10", "--timeout", "1ns", "--apply", "--output", "json"], env);
    expect(stopped).toEqual({
      code: EXIT.timeout,
      stdout: "",
      stderr: "engram: --timeout ran out after 1 pass(es); the 10 record(s) moved stay moved; run `engram migrate-remap-owner … --apply` again to continue\n",
    });
    expect(owners(await byId(env))).toEqual({ bob: 20, "(none)": 20 });

    const rest = await reportOf(["migrate-remap-owner", "--from-missing", "--to", "bob", "--apply", "--output", "json"], env);
    expect(rest).toMatchObject({ would_remap: 20, remapped: 20, backlog: 0 });
  });

  it("a server starting on records with no owner, or anonymous records while tokens are configured, warns once with the count and names the verb that fixes it", async () => {
    const env = await seeded([rec(0, undefined), rec(1, undefined), rec(2, ""), rec(3, "alice")]);
    const log = captureLog();
    const running = await serve({ listenAddr: "127.0.0.1:0", env: { ...env, ENGRAM_AUTH_TOKENS: "alice=tok-a" }, embedder: new FakeEmbedder(DIM), log });
    try {
      const warned = async () => {
        for (let i = 0; i < 400 && !log.text().includes("anonymous bucket"); i++) await new Promise((r) => setTimeout(r, 25));
        return log.lines.map((l) => JSON.parse(l) as { level: string; msg: string; records?: number }).filter((l) => l.msg.includes("migrate-remap-owner"));
      };
      expect(await warned()).toEqual([
        { level: "warn", msg: "records without an owner exist and no owner-scoped read sees them; run: engram migrate-remap-owner --from-missing --to <owner>", records: 2 },
        { level: "warn", msg: 'records of the anonymous bucket (owner "") exist but callers authenticate, so no caller sees them; run: engram migrate-remap-owner --from-anon --to <owner>', records: 1 },
      ]);
    } finally {
      await running.close();
    }
  });

  it("a run SIGKILLed mid-way leaves each record moved or not, and a rerun moves the rest: none lost, none doubled", async () => {
    // Embedded: enough small passes that the kill lands inside the loop. Qdrant: the fake parks one write's answer until the kill.
    const n = ON_QDRANT_FAKE ? 60 : 2000;
    const batch = ON_QDRANT_FAKE ? "5" : "2";
    const records = Array.from({ length: n }, (_, i) => rec(i, undefined));
    const env = await seeded(records);
    let release = () => {};
    if (ON_QDRANT_FAKE) {
      const fake = await fileQdrantFake();
      let upserts = 0;
      const hold = fake.holds.hold((req) => req.operation === "upsert_points" && req.collection === env.ENGRAM_QDRANT_COLLECTION && ++upserts === 25, { phase: "before-response" });
      release = () => hold.release();
    }

    const child = spawn(process.execPath, ["bin/engram.js", "migrate-remap-owner", "--from-missing", "--to", "erin", "--apply", "--batch-size", batch, "--output", "json"], {
      cwd: REPO,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, ENGRAM_PROGRESS: "always" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    // The first progress line says a pass has committed; on Qdrant the parked write says the same.
    await new Promise<void>((resolve) => child.stderr.setEncoding("utf8").on("data", (d: string) => d.includes("remapped ") && resolve()));
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    release();
    expect(stdout).toBe("");

    const mid = await byId(env);
    const moved = owners(mid).erin ?? 0;
    expect(mid.size).toBe(n);
    expect(moved).toBeGreaterThan(0);
    expect(moved).toBeLessThan(n);
    expect(owners(mid)).toEqual({ erin: moved, "(none)": n - moved });

    const rerun = await reportOf(["migrate-remap-owner", "--from-missing", "--to", "erin", "--apply", "--batch-size", "1000", "--output", "json"], env);
    expect(rerun).toMatchObject({ would_remap: n - moved, remapped: n - moved, failed: 0, backlog: 0 });
    const done = await byId(env);
    expect(owners(done)).toEqual({ erin: n });
    expect([...done.keys()].sort()).toEqual(records.map((r) => r.id).sort());
    for (const r of records) expect(kept(done.get(r.id)!)).toEqual(kept(mid.get(r.id)!));
  });
});
