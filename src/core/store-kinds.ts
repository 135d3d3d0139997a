import { checkArgKinds } from "./arg-kinds.js";
import type { StoreArgs } from "./args.js";
import { rejectUnknownArguments } from "./unknown-arguments.js";

/**
 * The JSON kind of each store argument, in the order they are checked. One
 * table for the single write's row and for every record of a batch or a
 * JSON Lines file, so a record is checked as its own call would be.
 */
export const STORE_KINDS = {
  content: "string",
  scope: "string",
  source: "string",
  category: "string",
  tags: "strings",
  repo: "string",
  workspace: "string",
  worktree: "string",
  base_dir: "string",
  summary: "string",
  citations: "citations",
  idempotency_key: "string",
} as const;

/**
 * The single write's tool: the name its row gives MCP, the one a record
 * carrying an argument it does not take is refused in, and the one the
 * other writes' descriptions point to for what a record holds.
 */
export const RECORD_TOOL = "store_memory";

/**
 * One record's arguments as caller JSON: null is "not sent", an argument a
 * record does not take is refused, then each argument's JSON type. Shared
 * by a batch's records on MCP and the CLI's JSON Lines, so a record is
 * refused in the words its own call would get.
 */
export function recordArguments(value: unknown): StoreArgs {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return checkArgKinds(STORE_KINDS, value as StoreArgs);
  const sent = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
  rejectUnknownArguments(RECORD_TOOL, Object.keys(STORE_KINDS), sent);
  return checkArgKinds(STORE_KINDS, sent as StoreArgs);
}
