/**
 * The exit-status rows of the client verbs: the commands that talk to a
 * server over --server or ENGRAM_SERVER_URL, run against a real one, one with
 * bearer tokens, one with a tiny response budget, a dead port and a listener
 * that never answers, and the refusals they make before dialing at all.
 */
import { EXIT, ruleError } from "../../src/argerror/index.js";
import { EMPTY_SCOPE_NOTE } from "./empty-scope-note.js";
import type { Row } from "./exit-code-table.js";

const OVERSIZED = "x".repeat(70_000);
const RECORD = ["--source", "user-said", "--category", "convention"];

export const CLIENT_ROWS: Row[] = [
  // 0: success
  {
    name: "list of an empty scope succeeds",
    args: ["list", "--scope", "nobody-home"],
    target: "server",
    exit: EXIT.ok,
    stderrNote: EMPTY_SCOPE_NOTE,
  },
  {
    name: "list reads the server from ENGRAM_SERVER_URL",
    args: ["list", "--scope", "nobody-home"],
    target: "server",
    viaEnv: true,
    exit: EXIT.ok,
    stderrNote: EMPTY_SCOPE_NOTE,
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
    stderrNote: EMPTY_SCOPE_NOTE,
  },
  {
    name: "ENGRAM_TOKEN wins over --token-file",
    args: ["list", "--scope", "s", "--token-file", "{wrongTokenFile}"],
    target: "auth",
    env: { ENGRAM_TOKEN: "tok-a" },
    exit: EXIT.ok,
    stderrNote: EMPTY_SCOPE_NOTE,
  },

  // 1: unclassified
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
export const EXPECTED_ROW_COUNT = 45;
