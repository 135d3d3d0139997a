/**
 * The JSON kind of each store argument, in the order they are checked. One
 * table for StoreMemory's row in operations.ts and for every record of a
 * StoreMemories batch, so a record is checked as its own call would be.
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
