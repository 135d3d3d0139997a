/**
 * Exit statuses of the real `engram` binary, run as child processes against a
 * real server, a server with a tiny response budget, a server with bearer
 * tokens, a dead port and a server that accepts connections but never answers,
 * and operator verbs against a store seeded in this process (closed before
 * any child opens it).
 *
 * The rows are a table with a pinned count and unique names, so a row cannot
 * silently disappear, and the statuses they cover are compared with the exit
 * table in src/argerror.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, EXIT_TABLE, isServerText, ruleError } from "../src/argerror/index.js";
import { EmbeddedStore } from "../src/store/embedded/embedded-store.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { childStoreEnv, ON_QDRANT_FAKE } from "./helpers/test-store.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));

type Run = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** The child sees none of the parent's ENGRAM_* settings, only what the row gives it. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("ENGRAM_") && k !== "NODE_OPTIONS") env[k] = v;
  }
  return { ...env, ...extra };
}

/** Async on purpose: the servers live in this process and must keep answering while the child runs. */
function runEngram(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["bin/engram.js", ...args], {
      cwd: REPO,
      env: childEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A TCP listener that accepts every connection and never writes a byte. */
async function startHungServer() {
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

type Hung = Awaited<ReturnType<typeof startHungServer>>;

/**
 * Where a row points --server:
 * - server: an anonymous real server; auth: one with ENGRAM_AUTH_TOKENS;
 *   budget: one whose reads may return at most 200 bytes;
 * - dead: a port nothing listens on; hung: accepts and never answers;
 * - untouched: a hung server no row may ever reach (proves "no dial");
 * - none: no --server at all.
 */
type Target = "server" | "auth" | "budget" | "dead" | "hung" | "untouched" | "none";

type Row = {
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
  /** A fragment stderr must contain. */
  stderrHas?: string;
  /** A fragment stderr must not contain: a secret the invocation carried. */
  stderrLacks?: string;
};

const OVERSIZED = "x".repeat(70_000);
const RECORD = ["--source", "user-said", "--category", "convention"];

const ROWS: Row[] = [
  // 0: success
  { name: "a bare engram prints its catalog", args: [], target: "none", exit: EXIT.ok },
  { name: "--version prints the version", args: ["--version"], target: "none", exit: EXIT.ok },
  { name: "help for a verb is a success", args: ["help", "search"], target: "none", exit: EXIT.ok },
  { name: "completion bash prints a script", args: ["completion", "bash"], target: "none", exit: EXIT.ok },
  { name: "the version verb prints the version", args: ["version"], target: "none", exit: EXIT.ok },
  { name: "help for a nested command is a success", args: ["help", "migrate", "revert"], target: "none", exit: EXIT.ok },
  {
    name: "migrate status accepts the original CLI's --timeout",
    args: ["migrate", "status", "--timeout", "10s", "--output", "json"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.ok,
  },
  {
    name: "backfill-short-ids --dry-run previews the v0 to v1 sweep",
    args: ["backfill-short-ids", "--dry-run", "--output", "json"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.ok,
  },
  { name: "list of an empty scope succeeds", args: ["list", "--scope", "nobody-home"], target: "server", exit: EXIT.ok },
  {
    name: "list reads the server from ENGRAM_SERVER_URL",
    args: ["list", "--scope", "nobody-home"],
    target: "server",
    viaEnv: true,
    exit: EXIT.ok,
  },
  {
    name: "store with every required field succeeds",
    args: ["store", "--content", "the build uses pnpm", "--scope", "exit-ok", ...RECORD],
    target: "server",
    exit: EXIT.ok,
  },
  {
    name: "the right token from --token-file is accepted",
    args: ["list", "--scope", "s", "--token-file", "{goodTokenFile}"],
    target: "auth",
    exit: EXIT.ok,
  },
  {
    name: "ENGRAM_TOKEN wins over --token-file",
    args: ["list", "--scope", "s", "--token-file", "{wrongTokenFile}"],
    target: "auth",
    env: { ENGRAM_TOKEN: "tok-a" },
    exit: EXIT.ok,
  },

  // 1: unclassified
  {
    name: "a mistyped verb is exit 1 with a suggestion",
    args: ["serch", "--query", "x"],
    target: "none",
    exit: EXIT.unclassified,
    stderrLine: "engram: unknown command 'serch'",
  },
  {
    name: "commander's suggestion line carries the engram: prefix too",
    args: ["serach"],
    target: "none",
    exit: EXIT.unclassified,
    stderrLine: "engram: (Did you mean search?)",
  },
  {
    name: "a mistyped migrate subcommand is exit 1 with a suggestion, as a mistyped spine-review one is",
    args: ["migrate", "stauts", "--output", "json"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.unclassified,
    stderrLine: "engram: (Did you mean status?)",
  },
  {
    name: "a migrate subcommand word that is not a plain name is exit 1 and not repeated",
    args: ["migrate", "st@tus=secret"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.unclassified,
    stderrLine: "engram: unknown command",
    stderrLacks: "secret",
  },
  {
    name: "reusing an idempotency key with different content is exit 1",
    args: ["store", "--content", "second text", "--scope", "idem", ...RECORD, "--idempotency-key", "k-conflict"],
    target: "server",
    exit: EXIT.unclassified,
  },

  // 2: usage and validation
  {
    name: "store of 70000 bytes of content is rejected by the server with the too_long envelope",
    args: ["store", "--content", OVERSIZED, "--scope", "s", ...RECORD],
    target: "server",
    exit: EXIT.usage,
    stderrLine: "field=content hint=too_long: content too large: 70000 bytes (max 65536)",
  },
  {
    name: "list with --limit 1001 is rejected by the server as out_of_range",
    args: ["list", "--scope", "s", "--limit", "1001"],
    target: "server",
    exit: EXIT.usage,
    stderrLine: "field=limit hint=out_of_range: limit exceeds the maximum of 1000",
  },
  {
    name: "search with --k 1001 is rejected by the server as out_of_range",
    args: ["search", "--query", "x", "--scope", "s", "--k", "1001"],
    target: "server",
    exit: EXIT.usage,
    stderrHas: "field=k hint=out_of_range:",
  },
  {
    name: "store without --source gets the server's required envelope",
    args: ["store", "--content", "x", "--scope", "s", "--category", "gotcha"],
    target: "server",
    exit: EXIT.usage,
    stderrLine: "field=source hint=required: source is required",
  },
  {
    name: "schedule with neither window bound is rejected with the schedule-window rule envelope",
    args: ["schedule", "--content", "x", "--scope", "s", ...RECORD],
    target: "server",
    exit: EXIT.usage,
    stderrLine: ruleError("schedule-window-at-least-one-bound").message,
  },
  {
    name: "schedule with a --not-after on a day the month does not have is the format envelope before dialing, not another day",
    args: ["schedule", "--content", "x", "--scope", "s", ...RECORD, "--not-after", "2030-02-30T00:00:00Z"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine: "field=not_after hint=format: not_after must be RFC3339",
  },
  {
    name: "a missing --server is a usage error",
    args: ["list", "--scope", "s"],
    target: "none",
    exit: EXIT.usage,
    stderrLine: "engram: --server or ENGRAM_SERVER_URL is required",
  },
  {
    name: "a --server that is not an http URL is a usage error",
    args: ["list", "--scope", "s", "--server", "127.0.0.1:8080"],
    target: "none",
    exit: EXIT.usage,
  },
  {
    name: "an --output other than json or text is a usage error",
    args: ["list", "--scope", "s", "--output", "yaml"],
    target: "untouched",
    exit: EXIT.usage,
  },
  {
    name: "update with both --shared and --private is the envelope of a flag pair, before dialing",
    args: ["update", "abc", "--shared", "--private"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine: "field=shared,private hint=mutually_exclusive: shared and private cannot be combined; give the one to set",
  },
  {
    name: "--timeout 0 is refused before dialing",
    args: ["list", "--scope", "s", "--timeout", "0"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine: "engram: --timeout must be a positive duration such as 500ms, 30s or 2m",
  },
  {
    name: "a negative --timeout is refused before dialing",
    args: ["get", "abc", "--timeout", "-5s"],
    target: "untouched",
    exit: EXIT.usage,
  },
  {
    name: "a --timeout without a unit is refused before dialing",
    args: ["get", "abc", "--timeout", "30"],
    target: "untouched",
    exit: EXIT.usage,
  },
  {
    name: "a --timeout longer than a timer can wait is refused before dialing",
    args: ["get", "abc", "--timeout", "700h"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine: "engram: --timeout must be at most 596h",
  },
  {
    name: "an ENGRAM_TOKEN with a line break in it is refused before dialing, and the token is never shown",
    args: ["get", "abc"],
    target: "untouched",
    env: { ENGRAM_TOKEN: "tok-SECRET\nsecond-line" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_TOKEN holds a token with whitespace, control or non-Latin-1 characters, which an Authorization header cannot carry",
    stderrLacks: "SECRET",
  },
  {
    name: "a --token-file token past Latin-1 is refused before dialing, and the token is never shown",
    args: ["get", "abc", "--token-file", "{euroTokenFile}"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine: "engram: --token-file holds a token with whitespace, control or non-Latin-1 characters, which an Authorization header cannot carry",
    stderrLacks: "SECRET",
  },
  {
    name: "a malformed ENGRAM_TIMEOUT is refused before dialing",
    args: ["get", "abc"],
    target: "untouched",
    env: { ENGRAM_TIMEOUT: "soon" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_TIMEOUT must be a positive duration such as 500ms, 30s or 2m",
  },
  {
    name: "an unknown flag is a usage error",
    args: ["list", "--scope", "s", "--bogus"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine: "engram: unknown option '--bogus'",
  },
  {
    name: "get without an id is a usage error",
    args: ["get"],
    target: "untouched",
    exit: EXIT.usage,
  },
  {
    name: "--scope with --cross-spine is refused with the mutually_exclusive envelope",
    args: ["search", "--query", "x", "--scope", "s", "--cross-spine"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine:
      "field=scope,cross_spine hint=mutually_exclusive: scope and cross_spine cannot be combined; cross_spine already spans every scope the caller may read",
  },
  {
    name: "list-scheduled with --scope and --cross-spine is refused before dialing, as search is",
    args: ["list-scheduled", "--scope", "s", "--cross-spine"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine:
      "field=scope,cross_spine hint=mutually_exclusive: scope and cross_spine cannot be combined; cross_spine already spans every scope the caller may read",
  },
  // The conditional scope rule is the server's, answered after the checks the core makes first.
  {
    name: "list with neither --scope nor --cross-spine gets the server's conditional rule envelope",
    args: ["list"],
    target: "server",
    exit: EXIT.usage,
    stderrLine: "field=scope,cross_spine hint=conditional_required: scope is required unless cross_spine is true",
  },
  {
    name: "search with k over its cap and no scope is answered for k, as Connect and MCP answer it",
    args: ["search", "--query", "x", "--k", "5000"],
    target: "server",
    exit: EXIT.usage,
    stderrLine: "field=k hint=out_of_range: k exceeds the maximum of 1000",
  },
  {
    name: "a bare search is answered for its missing query, as MCP answers it",
    args: ["search"],
    target: "server",
    exit: EXIT.usage,
    stderrLine: "field=query hint=required: query is required",
  },
  {
    name: "two of the paging flags are refused with the paging-trio envelope",
    args: ["list", "--scope", "s", "--offset", "0", "--page-token", "abc"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine:
      "field=cursor_mode,offset,page_token hint=mutually_exclusive: cursor_mode, offset, and page_token are mutually exclusive",
  },
  {
    name: "update with no field flag is refused before dialing",
    args: ["update", "abc"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine: "field=update_mask hint=required: update_mask must contain at least one path, each of: content, shared, tags, summary",
  },
  {
    name: "a --citation that is not a JSON object is refused before dialing, by the core's own citation check",
    args: ["store", "--content", "x", "--scope", "s", ...RECORD, "--citation", "file:a.ts"],
    target: "untouched",
    exit: EXIT.usage,
    stderrLine: "field=citations hint=format: citation 0 must be an object",
  },

  {
    name: "serve with a malformed limit setting is a configuration error, exit 2",
    args: ["serve"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}", ENGRAM_MEMORY_MAX_SUMMARY_BYTES: "lots" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_MEMORY_MAX_SUMMARY_BYTES must be a non-negative integer",
  },
  {
    name: "serve with a body limit past 1 GiB is exit 2 before the store opens",
    args: ["serve"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}", ENGRAM_MAX_REQUEST_BYTES: "4294967296" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_MAX_REQUEST_BYTES must be a positive integer (bytes) of at most 1073741824",
  },
  {
    name: "serve with a request timeout longer than a timer can wait is exit 2, not a timer that fires at once",
    args: ["serve"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}", ENGRAM_REQUEST_TIMEOUT_MS: "2147483648" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_REQUEST_TIMEOUT_MS must be a positive integer (milliseconds) of at most 2147483647",
  },
  {
    name: "serve with an allowed origin that is not an http(s) origin is exit 2 before the store opens, naming the entry and not its value",
    args: ["serve"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}", ENGRAM_ALLOWED_ORIGINS: "https://ok.example, ftp://marker-value.example" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_ALLOWED_ORIGINS: entry 2 must be an http(s) origin such as https://app.example",
    stderrLacks: "marker-value",
  },
  {
    name: "serve with a cap written as hex is exit 2, not a cap of 16",
    args: ["serve"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}", ENGRAM_MEMORY_MAX_CONTENT_BYTES: "0x10" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_MEMORY_MAX_CONTENT_BYTES must be a positive integer",
  },
  {
    name: "serve with a malformed embed queue names the setting and not the value",
    args: ["serve"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}", ENGRAM_EMBED_QUEUE: "marker-value" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_EMBED_QUEUE must be an integer from 0 to 10000",
  },
  {
    name: "mcp with a Qdrant URL that is not one is exit 2, naming the setting and not the value",
    args: ["mcp"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}", ENGRAM_QDRANT_URL: "marker-value" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_QDRANT_URL must be an absolute http:// or https:// URL",
  },
  {
    name: "mcp with an ENGRAM_MCP_OWNER holding whitespace is exit 2, as a static token's owner would be",
    args: ["mcp"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}", ENGRAM_MCP_OWNER: "a b" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_MCP_OWNER has whitespace or control characters",
  },
  {
    name: "serve with a listen address that is not host:port is exit 2",
    args: ["serve", "--listen-addr", "nohost"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}" },
    exit: EXIT.usage,
    stderrLine: "engram: listen address must be host:port (e.g. 127.0.0.1:8080 or [::1]:8080)",
  },
  {
    name: "mcp with a malformed ENGRAM_AUTH_TOKENS is exit 2",
    args: ["mcp"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}", ENGRAM_AUTH_TOKENS: "no-equals-sign" },
    exit: EXIT.usage,
    stderrLine: "engram: ENGRAM_AUTH_TOKENS: entry 1 must have the form owner=token",
  },
  {
    name: "migrate status with a malformed --timeout is exit 2",
    args: ["migrate", "status", "--timeout", "soon"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.usage,
    stderrLine: "engram: --timeout must be a duration such as 30s, 5m or 1h, or 0 for no limit",
  },
  {
    name: "export with an empty --scope is refused with an envelope, as the sweeps refuse it",
    args: ["export", "--owner", "", "--scope", ""],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.usage,
    stderrLine: "field=scope hint=required: --scope must name one scope; leave it out to export every scope",
  },
  {
    name: "export naming no owner is refused with the conditional_required envelope",
    args: ["export", "--scope", "project:exit-seven"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.usage,
    stderrLine:
      'field=owner,all-owners hint=conditional_required: export requires an explicit --owner or --all-owners: name one owner ("" is the anonymous owner), or opt into every owner',
  },
  {
    name: "reindex refuses --apply with --dry-run",
    args: ["reindex", "--apply", "--dry-run"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}" },
    exit: EXIT.usage,
    stderrLine: "field=apply,dry-run hint=mutually_exclusive: apply and dry-run cannot be combined; without apply the run is a preview",
  },
  {
    name: "backfill-short-ids refuses --apply with --dry-run",
    args: ["backfill-short-ids", "--apply", "--dry-run"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{scratchDataDir}" },
    exit: EXIT.usage,
    stderrLine: "field=apply,dry-run hint=mutually_exclusive: apply and dry-run cannot be combined; without apply the run is a preview",
  },

  // 3: authentication
  {
    name: "a wrong ENGRAM_TOKEN is unauthenticated",
    args: ["list", "--scope", "s"],
    target: "auth",
    env: { ENGRAM_TOKEN: "not-the-token" },
    exit: EXIT.auth,
  },
  {
    name: "a wrong token in --token-file is unauthenticated",
    args: ["get", "abc", "--token-file", "{wrongTokenFile}"],
    target: "auth",
    exit: EXIT.auth,
  },
  { name: "no token against a server with tokens is unauthenticated", args: ["list", "--scope", "s"], target: "auth", exit: EXIT.auth },

  // 4: not found
  {
    name: "get of a missing id is not found",
    args: ["get", "ZZZZZZZZZZ"],
    target: "server",
    exit: EXIT.not_found,
    stderrLine: "not found: ZZZZZZZZZZ",
  },
  {
    name: "supersede of a missing target is not found",
    args: ["supersede", "--content", "x", "--scope", "s", ...RECORD, "--supersedes", "ZZZZZZZZZZ"],
    target: "server",
    exit: EXIT.not_found,
    stderrLine: "not found: ZZZZZZZZZZ",
  },
  { name: "delete of a missing id is not found", args: ["delete", "ZZZZZZZZZZ"], target: "server", exit: EXIT.not_found },

  // 5: unavailable
  { name: "list against a dead port is unavailable", args: ["list", "--scope", "s"], target: "dead", exit: EXIT.unavailable },
  {
    name: "get against a dead port is unavailable, and the refused connection is an engram: line",
    args: ["get", "abc"],
    target: "dead",
    exit: EXIT.unavailable,
    stderrLine: "engram: connect ECONNREFUSED 127.0.0.1:1",
  },
  {
    name: "--insecure warns on stderr and proceeds to dial",
    args: ["get", "abc", "--insecure"],
    target: "dead",
    exit: EXIT.unavailable,
    stderrLine: "engram: WARNING: TLS certificate verification is disabled (--insecure); do not use against an untrusted network",
  },

  // 6: deadline exceeded
  {
    name: "a hung server with --timeout 300ms is deadline_exceeded",
    args: ["list", "--scope", "s", "--timeout", "300ms"],
    target: "hung",
    exit: EXIT.timeout,
    stderrLine: "engram: the operation timed out",
  },
  {
    name: "a hung server with ENGRAM_TIMEOUT=300ms is deadline_exceeded",
    args: ["get", "abc"],
    target: "hung",
    env: { ENGRAM_TIMEOUT: "300ms" },
    exit: EXIT.timeout,
  },

  // 7: findings under an explicit --fail-on (operator verbs: the store is opened directly, no --server)
  {
    name: "spine-review verify --fail-on broken with a broken citation exits 7",
    args: ["spine-review", "verify", "--all-scopes", "--work-tree", "{workTree}", "--fail-on", "broken"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.findings,
    stderrLine: "engram: verify found 1 citation(s) in tier broken (--fail-on broken)",
  },
  {
    name: "spine-review verify over the same broken citation without --fail-on exits 0",
    args: ["spine-review", "verify", "--all-scopes", "--work-tree", "{workTree}"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.ok,
  },
  {
    name: "spine-review verify with an unknown --fail-on tier is a usage error with the enum envelope",
    args: ["spine-review", "verify", "--all-scopes", "--work-tree", "{workTree}", "--fail-on", "bogus"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.usage,
    stderrLine: `${ruleError("verify-fail-on-accepted-values").message}`,
  },

  // 10: response too large
  {
    name: "a list larger than the server's response budget is resource_exhausted",
    args: ["list", "--scope", "big"],
    target: "budget",
    exit: EXIT.too_large,
    stderrHas: "field=response hint=response_too_large:",
  },
];

/** Pinned so a deleted row fails the suite instead of shrinking it. */
const EXPECTED_ROW_COUNT = 75;

const STORELESS_VERBS: ReadonlySet<string> = new Set(["serve", "mcp", "help", "completion", "version", "--version"]);

/**
 * On the Qdrant fake the operator rows that read the seeded record still run,
 * on the embedded operator store they were seeded into, and say so in their
 * name; the Qdrant runs of those verbs are their own files.
 */
const RUN_ROWS: Row[] = ON_QDRANT_FAKE
  ? ROWS.map((r) => (r.env?.ENGRAM_DATA_DIR === "{operatorDataDir}" ? { ...r, name: `${r.name} (operator store: embedded)` } : r))
      // A row that sets the Qdrant URL itself runs once: on the fake the child's URL is the fake's.
      .filter((r) => r.env?.ENGRAM_QDRANT_URL === undefined)
      // So does a row that opens no store at all (help, or a setting refused before anything opens).
      .filter((r) => !(r.target === "none" && (r.args.length === 0 || STORELESS_VERBS.has(r.args[0]!))))
  : ROWS;

// Every row is a real child process; on a loaded two-core machine they can be slow.
describe("engram exit statuses", { timeout: 180_000 }, () => {
  let server: TestServer;
  let auth: TestServer;
  let budget: TestServer;
  let hung: Hung;
  let untouched: Hung;
  let tmp: string;
  const placeholders: Record<string, string> = {};
  let scratchStoreEnv: Record<string, string> = {};

  beforeAll(async () => {
    [server, auth, budget, hung, untouched] = await Promise.all([
      startTestServer(),
      startTestServer({ env: { ENGRAM_AUTH_TOKENS: "alice=tok-a" } }),
      startTestServer({ env: { ENGRAM_RESPONSE_BUDGET_BYTES: "200" } }),
      startHungServer(),
      startHungServer(),
    ]);
    tmp = mkdtempSync(join(tmpdir(), "engram-cli-"));
    // An operator store with one record whose file citation points at a file the work tree lacks.
    placeholders.operatorDataDir = join(tmp, "operator-data");
    placeholders.workTree = join(tmp, "work-tree");
    placeholders.scratchDataDir = join(tmp, "scratch-data");
    scratchStoreEnv = await childStoreEnv(placeholders.scratchDataDir);
    mkdirSync(placeholders.workTree);
    const store = EmbeddedStore.open({ dataDir: placeholders.operatorDataDir, dim: 512 });
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
    await store.close();

    placeholders.goodTokenFile = join(tmp, "good-token");
    placeholders.wrongTokenFile = join(tmp, "wrong-token");
    writeFileSync(placeholders.goodTokenFile, "tok-a\n");
    writeFileSync(placeholders.wrongTokenFile, "tok-wrong\n");
    placeholders.euroTokenFile = join(tmp, "euro-token");
    writeFileSync(placeholders.euroTokenFile, "tok-SECRET-\u20ac\n");

    await server.client().storeMemory({
      content: "first text",
      scope: "idem",
      source: "user-said",
      category: "convention",
      idempotencyKey: "k-conflict",
    });
    const budgetClient = budget.client();
    for (let i = 0; i < 3; i++) {
      await budgetClient.storeMemory({
        content: `record number ${i} with enough words to fill a compact row`,
        scope: "big",
        source: "user-said",
        category: "convention",
      });
    }
  });

  afterAll(async () => {
    await Promise.all([server?.close(), auth?.close(), budget?.close(), hung?.close(), untouched?.close()]);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  function urlOf(target: Target): string | undefined {
    switch (target) {
      case "server":
        return server.url;
      case "auth":
        return auth.url;
      case "budget":
        return budget.url;
      case "dead":
        return "http://127.0.0.1:1";
      case "hung":
        return hung.url;
      case "untouched":
        return untouched.url;
      case "none":
        return undefined;
    }
  }

  it("has the pinned number of rows, each with a unique name", () => {
    expect(ROWS).toHaveLength(EXPECTED_ROW_COUNT);
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length);
  });

  it("covers every exit status in the table", () => {
    const covered = new Set(ROWS.map((r) => r.exit));
    const all = Object.values(EXIT_TABLE).map((r) => r.code);
    expect([...covered].sort((a, b) => a - b)).toEqual([...all].sort((a, b) => a - b));
  });

  it.concurrent.for(RUN_ROWS)("$name", async (row, { expect }) => {
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
      expect(run.stderr).toBe("");
    } else if (row.exit === EXIT.findings) {
      // The command succeeded: its report is on stdout, the reason for 7 on stderr.
      expect(JSON.parse(run.stdout)).toBeTypeOf("object");
      expect(run.stderr).not.toBe("");
    } else {
      expect(run.stdout).toBe("");
      expect(run.stderr).not.toBe("");
    }
    if (row.stderrLine !== undefined) expect(run.stderr.split("\n")).toContain(row.stderrLine);
    // Every stderr line is the server's own text as sent (an envelope, a sentinel) or starts with "engram: ".
    for (const line of run.stderr.split("\n").filter((l) => l !== "")) {
      expect(isServerText(line) || line.startsWith("engram: "), line).toBe(true);
    }
    if (row.stderrHas !== undefined) expect(run.stderr).toContain(row.stderrHas);
    if (row.stderrLacks !== undefined) expect(run.stderr).not.toContain(row.stderrLacks);
    // No row may open a connection to the untouched listener: every refusal above happens before dialing.
    expect(untouched.connections()).toBe(0);
  });

  it("never lets a refused invocation reach the untouched listener", async () => {
    const run = await runEngram(["list", "--scope", "s", "--timeout", "0", "--server", untouched.url]);
    expect(run.code).toBe(EXIT.usage);
    expect(untouched.connections()).toBe(0);
  });
});
