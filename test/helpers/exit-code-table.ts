/**
 * The runner behind the exit-status tables (test/cli-exit-codes-*.test.ts):
 * each row is one run of the real `engram` binary as a child process, against
 * the target it names, and is held to its exit status and stderr.
 *
 * A file starts only the servers and stores its rows point at, so a table of
 * help rows does not pay for three servers and a seeded store.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { EXIT, isServerText } from "../../src/argerror/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { CURRENT_SCHEMA_VERSION } from "../../src/store/schema-version.js";
import { startTestServer, type TestServer } from "./engram-server.js";
import { runEngram } from "./run-engram.js";
import { childStoreEnv, ON_QDRANT_FAKE } from "./test-store.js";

/**
 * Where a row points --server:
 * - server: an anonymous real server, holding one record stored under the
 *   idempotency key k-conflict;
 * - auth: one with ENGRAM_AUTH_TOKENS alice=tok-a;
 * - budget: one whose reads may return at most 200 bytes, holding three
 *   records that together exceed it;
 * - dead: a port nothing listens on; hung: accepts and never answers;
 * - untouched: a hung server no row may ever reach (proves "no dial");
 * - none: no --server at all.
 */
export type Target = "server" | "auth" | "budget" | "dead" | "hung" | "untouched" | "none";

/**
 * A placeholder a row may use as a whole argument or env value, e.g.
 * "{operatorDataDir}":
 * - operatorDataDir: an embedded store holding one record whose file citation
 *   points at a file workTree lacks (closed before any child opens it);
 * - workTree: an empty directory;
 * - scratchDataDir: a data directory no record was written to, given to the
 *   child with the run's store configured (on the fake, a Qdrant collection);
 * - goodTokenFile, wrongTokenFile: "tok-a" and "tok-wrong";
 * - euroTokenFile: a token with a character past Latin-1.
 */
export type Row = {
  name: string;
  args: string[];
  target: Target;
  /** Pass the URL as ENGRAM_SERVER_URL instead of --server. */
  viaEnv?: boolean;
  /** Values may be placeholders like args: "{operatorDataDir}". */
  env?: Record<string, string>;
  exit: number;
  /** A line stderr must contain exactly. */
  stderrLine?: string;
  /** All of stderr, where the one line is the point. */
  stderrWhole?: string;
  /** A fragment stderr must contain. */
  stderrHas?: string;
  /** A fragment stderr must not contain: a secret the invocation carried. */
  stderrLacks?: string;
  /** A success whose stderr is not empty: the note it must be, whole. */
  stderrNote?: RegExp;
};

/** A TCP listener that accepts every connection and never writes a byte. */
export async function startHungServer() {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Hung = Awaited<ReturnType<typeof startHungServer>>;

const STORELESS_VERBS: ReadonlySet<string> = new Set(["serve", "mcp", "help", "completion", "version", "--version"]);

/**
 * On the Qdrant fake the operator rows that read the seeded record still run,
 * on the embedded operator store they were seeded into, and say so in their
 * name; the Qdrant runs of those verbs are their own files.
 */
function rowsForThisStore(rows: readonly Row[]): readonly Row[] {
  if (!ON_QDRANT_FAKE) return rows;
  return (
    rows
      .map((r) => (r.env?.ENGRAM_DATA_DIR === "{operatorDataDir}" ? { ...r, name: `${r.name} (operator store: embedded)` } : r))
      // A row that sets the Qdrant URL itself runs once: on the fake the child's URL is the fake's.
      .filter((r) => r.env?.ENGRAM_QDRANT_URL === undefined)
      // So does a row that opens no store at all (help, or a setting refused before anything opens).
      .filter((r) => !(r.target === "none" && (r.args.length === 0 || STORELESS_VERBS.has(r.args[0]!))))
  );
}

function placeholdersOf(rows: readonly Row[]): Set<string> {
  const used = new Set<string>();
  for (const r of rows) {
    for (const v of [...r.args, ...Object.values(r.env ?? {})]) {
      const m = /^\{(\w+)\}$/.exec(v);
      if (m) used.add(m[1]!);
    }
  }
  return used;
}

function seedOperatorStore(dataDir: string): Promise<void> {
  const store = EmbeddedStore.open({ dataDir, dim: 512 });
  const vector = new Float32Array(512);
  vector[0] = 1;
  store.transaction(() =>
    store.writeRecord(
      {
        id: "00000000-0000-4000-8000-000000000701",
        short_id: "EX7BR0KEN1",
        content: "the parser lives in src/parser.ts",
        scope: "project:exit-seven",
        repo: "",
        workspace: "",
        worktree_path: "",
        base_dir: "",
        source: "agent-inferred",
        category: "convention",
        tags: [],
        actor: "",
        owner: "",
        visibility: "",
        created_at: new Date().toISOString(),
        summary: "",
        summary_source: "",
        summary_model: "",
        access_count: 0,
        kind: "",
        citations: [{ kind: "file", ref: "src/parser.ts", locator: "1", pin: "", excerpt: "export function parse()" }],
        supersedes: [],
      },
      vector,
      CURRENT_SCHEMA_VERSION,
    ),
  );
  return store.close();
}

async function startServerTargets(used: ReadonlySet<Target>) {
  const [server, auth, budget] = await Promise.all([
    used.has("server") ? startTestServer() : undefined,
    used.has("auth") ? startTestServer({ env: { ENGRAM_AUTH_TOKENS: "alice=tok-a" } }) : undefined,
    used.has("budget") ? startTestServer({ env: { ENGRAM_RESPONSE_BUDGET_BYTES: "200" } }) : undefined,
  ]);
  await server?.client().storeMemory({
    content: "first text",
    scope: "idem",
    source: "user-said",
    category: "convention",
    idempotencyKey: "k-conflict",
  });
  const budgetClient = budget?.client();
  for (let i = 0; i < 3 && budgetClient; i++) {
    await budgetClient.storeMemory({
      content: `record number ${i} with enough words to fill a compact row`,
      scope: "big",
      source: "user-said",
      category: "convention",
    });
  }
  return { server, auth, budget };
}

/**
 * One test per row that runs on this store, each a real child process: on a
 * loaded two-core machine they can be slow, hence the long timeout.
 */
export function describeExitTable(title: string, rows: readonly Row[]): void {
  describe(title, { timeout: 180_000 }, () => {
    const targets = new Set(rows.map((r) => r.target));
    const wanted = placeholdersOf(rows);
    let servers: Partial<Awaited<ReturnType<typeof startServerTargets>>> = {};
    let hung: Hung | undefined;
    let untouched: Hung;
    let tmp: string;
    const placeholders: Record<string, string> = {};
    let scratchStoreEnv: Record<string, string> = {};

    beforeAll(async () => {
      // The untouched listener is always there: every row proves it dialed nothing it should not have.
      [servers, hung, untouched] = await Promise.all([
        startServerTargets(targets),
        targets.has("hung") ? startHungServer() : undefined,
        startHungServer(),
      ]);
      tmp = mkdtempSync(join(tmpdir(), "engram-cli-"));
      if (wanted.has("operatorDataDir") || wanted.has("workTree")) {
        placeholders.operatorDataDir = join(tmp, "operator-data");
        placeholders.workTree = join(tmp, "work-tree");
        mkdirSync(placeholders.workTree);
        await seedOperatorStore(placeholders.operatorDataDir);
      }
      if (wanted.has("scratchDataDir")) {
        placeholders.scratchDataDir = join(tmp, "scratch-data");
        scratchStoreEnv = await childStoreEnv(placeholders.scratchDataDir);
      }
      placeholders.goodTokenFile = join(tmp, "good-token");
      placeholders.wrongTokenFile = join(tmp, "wrong-token");
      placeholders.euroTokenFile = join(tmp, "euro-token");
      writeFileSync(placeholders.goodTokenFile, "tok-a\n");
      writeFileSync(placeholders.wrongTokenFile, "tok-wrong\n");
      writeFileSync(placeholders.euroTokenFile, "tok-SECRET-\u20ac\n");
    });

    afterAll(async () => {
      const { server, auth, budget } = servers;
      await Promise.all([server?.close(), auth?.close(), budget?.close(), hung?.close(), untouched?.close()]);
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    });

    function urlOf(target: Target): string | undefined {
      switch (target) {
        case "server":
        case "auth":
        case "budget":
          return servers[target]!.url;
        case "dead":
          return "http://127.0.0.1:1";
        case "hung":
          return hung!.url;
        case "untouched":
          return untouched.url;
        case "none":
          return undefined;
      }
    }

    it.concurrent.for(rowsForThisStore(rows))("$name", async (row, { expect }) => {
      const url = urlOf(row.target);
      const fill = (a: string) => a.replace(/^\{(\w+)\}$/, (_, key: string) => placeholders[key] ?? a);
      const args = row.args.map(fill);
      const env = Object.fromEntries(Object.entries(row.env ?? {}).map(([k, v]) => [k, fill(v)]));
      // A refusal that needs no records is made with the run's store configured: on the fake, a Qdrant collection.
      if (row.env?.ENGRAM_DATA_DIR === "{scratchDataDir}") Object.assign(env, scratchStoreEnv);
      if (url !== undefined) {
        if (row.viaEnv) env.ENGRAM_SERVER_URL = url;
        else args.push("--server", url);
      }
      const run = await runEngram(args, env);

      expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: row.exit });
      if (row.exit === EXIT.ok) {
        if (row.stderrNote === undefined) expect(run.stderr).toBe("");
        else expect(run.stderr).toMatch(row.stderrNote);
      } else if (row.exit === EXIT.findings) {
        // The command succeeded: its report is on stdout, the reason for 7 on stderr.
        expect(JSON.parse(run.stdout)).toBeTypeOf("object");
        expect(run.stderr).not.toBe("");
      } else {
        expect(run.stdout).toBe("");
        expect(run.stderr).not.toBe("");
      }
      if (row.stderrLine !== undefined) expect(run.stderr.split("\n")).toContain(row.stderrLine);
      if (row.stderrWhole !== undefined) expect(run.stderr).toBe(row.stderrWhole);
      // Every stderr line is the server's own text as sent (an envelope, a sentinel) or starts with "engram: ".
      for (const line of run.stderr.split("\n").filter((l) => l !== "")) {
        expect(isServerText(line) || line.startsWith("engram: "), line).toBe(true);
      }
      if (row.stderrHas !== undefined) expect(run.stderr).toContain(row.stderrHas);
      if (row.stderrLacks !== undefined) expect(run.stderr).not.toContain(row.stderrLacks);
      // No row may open a connection to the untouched listener: every refusal above happens before dialing.
      expect(untouched.connections()).toBe(0);
    });
  });
}
