/**
 * The MCP tool surface: every tool name engram advertises, with its
 * behaviour hints. A hint is true only when it holds for every valid call
 * (the conservative reading), and no tool reaches outside engram's own
 * records, so openWorldHint is false for all of them.
 *
 * Every tool listed here has a handler (handlers.ts fails to compile
 * otherwise), so every tool of the table is served.
 */
export const TOOL_TABLE = {
  store_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  schedule_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  search_memory: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  list_memory: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  list_scheduled: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  get_memory: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  update_memory: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  delete_memory: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  delete_all: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  store_discovery: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  search_discovery: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  set_visibility: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  supersede_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  store_rule: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  list_rules: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  archive_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  restore_memory: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  related_memories: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  list_tags: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
} as const satisfies Record<string, { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean }>;

export type ToolName = keyof typeof TOOL_TABLE;

/** Declaration order, which is also the order tools are registered and documented. */
export const TOOL_NAMES = Object.keys(TOOL_TABLE) as ToolName[];

export type ToolAnnotationSet = {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
};

/** The annotations a tool advertises: its row, plus the closed-world hint every tool shares. */
export function annotationsOf(name: ToolName): ToolAnnotationSet {
  return { ...TOOL_TABLE[name], openWorldHint: false };
}
