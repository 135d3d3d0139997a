/**
 * A damaged vector snapshot never stops a start. A store of 4,200 records
 * (enough for the index to keep a graph file) is stopped cleanly, then one
 * file of its snapshot is damaged the ways disks and people damage files:
 * truncated, overwritten with garbage of the same size, one byte changed,
 * replaced by another generation's file. Each copy is started as the real
 * binary in a child process (usearch dies in native code on a damaged graph
 * it is handed, and that must fail the case, not the runner): it must come
 * up, answer searches as the intact store does, and log the damage once.
 * A seeded fuzz then checks a few hundred more damages against the same
 * checks in process, never handing a file to usearch, and starts a handful.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemoryRecord } from "../src/core/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { VectorIndex } from "../src/store/embedded/vector/vector-index.js";
import { SNAPSHOT_DAMAGED_MSG } from "../src/store/embedded/vector/vector-keeper.js";
import { DAMAGED_SUFFIX } from "../src/store/embedded/vector/vector-snapshot.js";
import { verifySnapshot } from "../src/store/embedded/vector/vector-snapshot-read.js";
import { bagOfWords, startBagOfWordsEmbeddings } from "./helpers/bag-of-words-embeddings.js";
import { captureLog } from "./helpers/capture-log.js";
import { damage, startAndAsk, type StartOutcome } from "./helpers/snapshot-damage.js";
import { mulberry32 } from "./helpers/synthetic-vectors.js";
import { plainRecord } from "./helpers/synthetic-record.js";

const DIM = 96;
const RECORDS = 4200;
const K = 5;
const MODEL = "damage-embed";
const WORDS = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}`);

function content(i: number): string {
  const rand = mulberry32(i + 1);
  return `note ${i} ` + Array.from({ length: 8 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ");
}

const rec = (i: number): MemoryRecord => plainRecord(i, { idHead: "50000000", shortPrefix: "D", content: content(i), scopes: 4 });

/** Record contents (each must find itself first) and word mixes spread over several records. */
const QUERIES = [...[7, 1234, 2500, 4100].map(content), `${WORDS[5]} ${WORDS[77]} ${WORDS[901]}`, `${WORDS[2048]} ${WORDS[13]}`];

const dirs: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "engram-snapshot-damage-"));
  dirs.push(dir);
  return dir;
}

let embeddings: Awaited<ReturnType<typeof startBagOfWordsEmbeddings>>;
/** The stopped store every case copies: engram.db and the snapshot of its newest generation. */
let pristine: string;
/** A data dir holding only the snapshot of the generation before it. */
let olderGeneration: string;
let intact: StartOutcome;
const table: string[] = [];
/** Every reason a damaged start logged, for the docs check at the end. */
const reasons = new Set<string>();

function env(dataDir: string): Record<string, string> {
  return { ENGRAM_DATA_DIR: dataDir, ENGRAM_OPENAI_BASE_URL: embeddings.url, ENGRAM_EMBED_MODEL: MODEL, ENGRAM_EMBED_DIM: String(DIM) };
}

/** The snapshot file of `kind` under a data dir's vectors/ folder. */
function fileOf(dataDir: string, kind: "manifest" | "vectors" | "graph"): string {
  const folder = join(dataDir, "vectors");
  if (kind === "manifest") return join(folder, "manifest.json");
  const name = readdirSync(folder).find((n) => n.startsWith(`${kind}-`));
  if (name === undefined) throw new Error(`no ${kind} file under ${folder}`);
  return join(folder, name);
}

function copyOfPristine(): string {
  const dir = scratch();
  cpSync(pristine, dir, { recursive: true });
  return dir;
}

const damageLines = (o: StartOutcome) => o.lines.filter((l) => l.msg === SNAPSHOT_DAMAGED_MSG);

beforeAll(async () => {
  embeddings = await startBagOfWordsEmbeddings(DIM);
  pristine = scratch();
  const first = EmbeddedStore.open({ dataDir: pristine, dim: DIM });
  first.transaction(() => {
    for (let i = 0; i < RECORDS; i++) first.writeRecord(rec(i), bagOfWords(content(i), DIM));
  });
  await first.warm(); // builds the index and its graph, and saves them: over 4,096 records
  await first.close();
  olderGeneration = scratch();
  cpSync(join(pristine, "vectors"), join(olderGeneration, "vectors"), { recursive: true });

  // One record out and one in: the next generation has as many slots, so its vectors file is as long.
  const second = EmbeddedStore.open({ dataDir: pristine, dim: DIM });
  await second.warm();
  await second.delete(rec(99).id);
  second.transaction(() => second.writeRecord(rec(RECORDS), bagOfWords(content(RECORDS), DIM)));
  await second.warm();
  await second.close();

  for (const kind of ["vectors", "graph"] as const) {
    if (size(fileOf(olderGeneration, kind)) !== size(fileOf(pristine, kind))) throw new Error(`the two generations' ${kind} files differ in length`);
  }
  intact = await startAndAsk(env(copyOfPristine()), QUERIES, K);
}, 240_000);

afterAll(async () => {
  if (table.length > 0) console.log(["| Damage | Started | Answers as intact | Logged |", "|---|---|---|---|", ...table].join("\n"));
  await embeddings?.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe("the intact store the damaged copies are measured against", () => {
  it("keeps a graph file in its snapshot, starts, and finds each record by its own content first", () => {
    expect(existsSync(fileOf(pristine, "graph"))).toBe(true);
    expect(intact.started, intact.stderr).toBe(true);
    expect(intact.answers.slice(0, 4).map((ids) => ids[0])).toEqual([7, 1234, 2500, 4100].map((i) => rec(i).id));
    expect(intact.answers.every((ids) => ids.length === K)).toBe(true);
    expect(damageLines(intact)).toEqual([]);
  });
});

type Kind = "manifest" | "vectors" | "graph";
/** A damage, and the check that must catch it (the reason the start logs). */
type Case = { name: string; kind: Kind; apply: (path: string, older: string) => void; reason: string };

const size = (path: string) => statSync(path).size;
const CASES: Case[] = [
  ...(["graph", "vectors"] as const).flatMap((kind): Case[] => [
    { name: `${kind} file truncated to 64 bytes`, kind, apply: (p) => damage.truncateTo(p, 64), reason: `${kind} file size mismatch` },
    { name: `${kind} file truncated to half`, kind, apply: (p) => damage.truncateTo(p, Math.floor(size(p) / 2)), reason: `${kind} file size mismatch` },
    { name: `${kind} file short of its last byte`, kind, apply: (p) => damage.truncateTo(p, size(p) - 1), reason: `${kind} file size mismatch` },
    { name: `${kind} file overwritten with garbage of the same size`, kind, apply: (p) => damage.garbage(p, 42), reason: `${kind} file checksum mismatch` },
    { name: `${kind} file with one byte changed in the middle`, kind, apply: (p) => damage.flipByte(p, Math.floor(size(p) / 2)), reason: `${kind} file checksum mismatch` },
    // Both generations' files have the same length here: only the checksum tells them apart.
    { name: `${kind} file replaced by the previous generation's`, kind, apply: (p, older) => damage.swapWith(p, older), reason: `${kind} file checksum mismatch` },
  ]),
  { name: "manifest truncated to half", kind: "manifest", apply: (p) => damage.truncateTo(p, Math.floor(size(p) / 2)), reason: "manifest is not JSON" },
  { name: "manifest overwritten with garbage of the same size", kind: "manifest", apply: (p) => damage.garbage(p, 7), reason: "manifest is not JSON" },
  { name: "manifest with one byte changed in the middle", kind: "manifest", apply: (p) => damage.flipByte(p, Math.floor(size(p) / 2)), reason: "manifest checksum mismatch" },
  // The previous save's manifest names files that save's successor deleted.
  { name: "manifest replaced by the previous generation's", kind: "manifest", apply: (p, older) => damage.swapWith(p, older), reason: "vectors file missing" },
];

/** Damages one file of a fresh copy, starts it in a child, and returns the outcome with a row for the damage table. */
async function startDamaged(name: string, kind: Kind, apply: (path: string, older: string) => void): Promise<{ dir: string; o: StartOutcome }> {
  const dir = copyOfPristine();
  const path = fileOf(dir, kind);
  apply(path, fileOf(olderGeneration, kind));
  const o = await startAndAsk(env(dir), QUERIES, K);
  for (const l of damageLines(o)) reasons.add(String(l.reason));
  const logged = damageLines(o).map(({ level, msg, reason, files }) => JSON.stringify({ level, msg, reason, files }));
  table.push(`| ${name} | ${o.started ? "yes" : `no (${o.end})`} | ${JSON.stringify(o.answers) === JSON.stringify(intact.answers) ? "yes" : "no"} | ${logged.join(" ") || "nothing"} |`);
  return { dir, o };
}

describe("a start on a damaged vector snapshot", () => {
  for (const c of CASES) {
    it(`${c.name}: starts, answers as the intact store, and logs the damage once`, async () => {
      const { o } = await startDamaged(c.name, c.kind, c.apply);
      expect(o.started, `ended ${o.end}:\n${o.stderr.slice(-2000)}`).toBe(true);
      expect(o.answers).toEqual(intact.answers);
      const lines = damageLines(o);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: "warn", reason: c.reason, records: RECORDS });
      expect(o.lines.filter((l) => String(l.msg).startsWith("no usable vector snapshot"))).toEqual([]);
    }, 120_000);
  }

  it("sets the damaged files aside, so the next start meets no damage and loads the rebuilt snapshot", async () => {
    const { dir, o } = await startDamaged("graph file overwritten with garbage, started twice", "graph", (p) => damage.garbage(p, 9));
    expect(o.started, o.stderr.slice(-2000)).toBe(true);
    const aside = readdirSync(join(dir, "vectors")).filter((n) => n.endsWith(".damaged")).sort();
    expect(aside).toEqual([expect.stringMatching(/^graph-.*\.usearch\.damaged$/), "manifest.json.damaged"]);

    const again = await startAndAsk(env(dir), QUERIES, K);
    expect(again.started, again.stderr.slice(-2000)).toBe(true);
    expect(again.answers).toEqual(intact.answers);
    expect(damageLines(again)).toEqual([]);
    expect(again.lines.filter((l) => String(l.msg).startsWith("no usable vector snapshot"))).toEqual([]);
  }, 180_000);
});

describe("a snapshot written by the previous version, without checksums", () => {
  it("is not trusted: the index is rebuilt once from the records, said at info, and the next start loads the new snapshot", async () => {
    const dir = copyOfPristine();
    const manifestPath = fileOf(dir, "manifest");
    const { checksum: _c, vectors: _v, graph: _g, ...rest } = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>;
    writeFileSync(manifestPath, JSON.stringify({ ...rest, version: 2 }));

    const log = captureLog();
    const store = EmbeddedStore.open({ dataDir: dir, dim: DIM, log });
    await store.warm();
    expect(log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => String(l.msg).includes("vector snapshot"))).toEqual([
      { level: "info", msg: "no usable vector snapshot: building the index from the records", reason: "written by an older version, without checksums", records: RECORDS },
    ]);
    await store.close();

    const next = captureLog();
    const reopened = EmbeddedStore.open({ dataDir: dir, dim: DIM, log: next });
    await reopened.warm();
    expect(next.text()).not.toContain("vector snapshot");
    await reopened.close();
  });
});

describe("setting a damaged snapshot aside", () => {
  it("keeps only the latest damage: a second one replaces the files the first set aside", () => {
    const folder = join(scratch(), "vectors");
    const aside = () => readdirSync(folder).filter((n) => n.endsWith(DAMAGED_SUFFIX)).sort();
    const index = new VectorIndex(4);
    index.upsert(1, [1, 0, 0, 0]);
    const names: string[] = [];
    for (const seed of [1, 2]) {
      index.save(folder);
      const vectorsFile = readdirSync(folder).find((n) => n.startsWith("vectors-") && !n.endsWith(DAMAGED_SUFFIX))!;
      names.push(vectorsFile);
      damage.garbage(join(folder, vectorsFile), seed);
      expect(VectorIndex.load(folder, 4)).toBeUndefined();
      expect(aside()).toEqual(["manifest.json.damaged", `${vectorsFile}.damaged`]);
    }
    expect(names[0]).not.toBe(names[1]);
  });
});

describe("a manifest naming a file outside its folder", () => {
  it("is refused before any file is read, and only the manifest is set aside", () => {
    const root = scratch();
    const folder = join(root, "vectors");
    const index = new VectorIndex(4);
    index.upsert(1, [1, 0, 0, 0]);
    index.save(folder);
    writeFileSync(join(root, "engram.db"), "the database");
    const manifestPath = join(folder, "manifest.json");
    const { checksum: _c, ...body } = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>;
    const forged = { ...body, vectorsFile: "../engram.db" };
    writeFileSync(manifestPath, JSON.stringify({ ...forged, checksum: createHash("sha256").update(JSON.stringify(forged)).digest("hex") }));

    expect(verifySnapshot(folder, 4)).toEqual({ reason: "manifest names files this version does not write", damaged: ["manifest.json"] });
    const faults: unknown[] = [];
    expect(VectorIndex.load(folder, 4, {}, {}, (f) => faults.push(f))).toBeUndefined();
    expect(faults).toHaveLength(1);
    expect(readFileSync(join(root, "engram.db"), "utf8")).toBe("the database");
    expect(existsSync(`${manifestPath}.damaged`)).toBe(true);
  });
});

describe("a seeded fuzz of snapshot damage", () => {
  const VERSION_REFUSALS = ["written by a newer version", "another format"];
  type Damage = { kind: Kind; how: string; bytes: Buffer };

  /** `length` seeded random bytes, four from each draw. */
  function randomBytesOf(rand: () => number, length: number): Buffer {
    const words = new Uint32Array(Math.ceil(length / 4));
    for (let i = 0; i < words.length; i++) words[i] = Math.floor(rand() * 2 ** 32);
    return Buffer.from(words.buffer, 0, length);
  }

  /** One random damage of one file's bytes: never the bytes unchanged. */
  function randomDamage(rand: () => number, kind: Kind, bytes: Buffer, older: Buffer): Damage {
    const at = (n: number) => Math.floor(rand() * n);
    for (;;) {
      const copy = Buffer.from(bytes);
      const pick = at(6);
      let out: Buffer;
      if (pick === 0) out = copy.subarray(0, at(copy.length));
      else if (pick === 1) out = randomBytesOf(rand, copy.length);
      else if (pick === 2) {
        const i = at(copy.length);
        copy[i] = copy[i]! ^ (1 + at(255));
        out = copy;
      } else if (pick === 3) {
        const from = at(copy.length);
        for (let i = from; i < Math.min(copy.length, from + 1 + at(64)); i++) copy[i] = at(256);
        out = copy;
      } else if (pick === 4) out = Buffer.concat([copy, Buffer.from(Array.from({ length: 1 + at(64) }, () => at(256)))]);
      else out = older;
      if (!out.equals(bytes)) return { kind, how: ["truncated", "garbage", "byte changed", "run overwritten", "extended", "older generation"][pick]!, bytes: out };
    }
  }

  function damages(seed: number, count: number): Damage[] {
    const rand = mulberry32(seed);
    const kinds: Kind[] = ["manifest", "vectors", "graph"];
    const originals = Object.fromEntries(kinds.map((k) => [k, readFileSync(fileOf(pristine, k))])) as Record<Kind, Buffer>;
    const older = Object.fromEntries(kinds.map((k) => [k, readFileSync(fileOf(olderGeneration, k))])) as Record<Kind, Buffer>;
    return Array.from({ length: count }, () => {
      const kind = kinds[Math.floor(rand() * kinds.length)]!;
      return randomDamage(rand, kind, originals[kind], older[kind]);
    });
  }

  it("every one of 300 random damages fails the snapshot's checks, naming the damaged file", () => {
    const dir = copyOfPristine();
    const folder = join(dir, "vectors");
    expect(verifySnapshot(folder, DIM)).toBeUndefined();
    const missed: string[] = [];
    for (const [i, d] of damages(20261206, 300).entries()) {
      const path = fileOf(dir, d.kind);
      const original = readFileSync(path);
      writeFileSync(path, d.bytes);
      const fault = verifySnapshot(folder, DIM);
      const named = fault !== undefined && (fault.damaged.includes(path.slice(folder.length + 1)) || (d.kind === "manifest" && VERSION_REFUSALS.includes(fault.reason)));
      if (!named) missed.push(`#${i} ${d.kind} ${d.how}: ${JSON.stringify(fault)}`);
      writeFileSync(path, original);
    }
    expect(missed).toEqual([]);
    expect(verifySnapshot(folder, DIM)).toBeUndefined();
  });

  it("a handful of them, started as the real binary, start and answer as the intact store", async () => {
    for (const [i, d] of damages(77, 3).entries()) {
      const { o } = await startDamaged(`fuzz #${i}: ${d.kind} ${d.how}`, d.kind, (path) => writeFileSync(path, d.bytes));
      expect(o.started, `fuzz #${i} ${d.kind} ${d.how} ended ${o.end}:\n${o.stderr.slice(-2000)}`).toBe(true);
      expect(o.answers, `fuzz #${i} ${d.kind} ${d.how}`).toEqual(intact.answers);
      expect(damageLines(o).length, `fuzz #${i}`).toBeLessThanOrEqual(1);
    }
  }, 300_000);
});

describe("docs/operations.md", () => {
  it("quotes the line a damaged start logs, every reason the damages above met, and the suffix damaged files are set aside under", () => {
    const doc = readFileSync(new URL("../docs/operations.md", import.meta.url), "utf8").replace(/\s+/g, " ");
    expect(doc).toContain(`"msg":"${SNAPSHOT_DAMAGED_MSG}"`);
    expect(doc).toContain(`\`<name>${DAMAGED_SUFFIX}\``);
    expect(reasons.size).toBeGreaterThan(4);
    for (const reason of reasons) {
      const [, file, rest] = /^(vectors file|graph file) (.*)$/.exec(reason) ?? [];
      expect(doc, reason).toContain(file === undefined ? `\`${reason}\`` : `\`${rest}\``);
    }
  });
});
