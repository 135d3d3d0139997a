/**
 * The exit-status rows of the commands that open a store or start a server
 * themselves, with no --server: the operator verbs (migrate, export, reindex,
 * backfill-short-ids, spine-review) against a store seeded in the test
 * process, and serve and mcp refusing a malformed setting.
 */
import { EXIT, ruleError } from "../../src/argerror/index.js";
import type { Row } from "./exit-code-table.js";

export const OPERATOR_ROWS: Row[] = [
  // 0: success
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

  // 1: unclassified
  {
    name: "a mistyped migrate subcommand is exit 1 with a suggestion, as a mistyped spine-review one is",
    args: ["migrate", "stauts", "--output", "json"],
    target: "none",
    env: { ENGRAM_DATA_DIR: "{operatorDataDir}" },
    exit: EXIT.unclassified,
    stderrLine: "engram: unknown command 'stauts' (did you mean status?)",
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

  // 2: usage and validation
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
    stderrLine: "field=timeout hint=format: --timeout must be a duration such as 30s, 5m or 1h, or 0 for no limit",
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

  // 7: findings under an explicit --fail-on
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
];

/** Pinned so a deleted row fails the suite instead of shrinking it. */
export const EXPECTED_ROW_COUNT = 22;
