import { OPERATION_ROWS, type AnyRow, type OperationName, type ToolName } from "../core/index.js";

export type { ToolName };

/**
 * The MCP tool surface, read off the operation table: every row with a tool
 * column is a tool, listed in the table's order, with the row's behaviour
 * hints as its annotations. No tool reaches outside engram's own records, so
 * openWorldHint is false for all of them.
 */
type ToolRow = AnyRow & { tool: NonNullable<AnyRow["tool"]> };

const TOOL_ROWS = OPERATION_ROWS.filter((r): r is ToolRow => r.tool !== undefined);

export type ToolHints = { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };

export const TOOL_TABLE = Object.fromEntries(
  TOOL_ROWS.map((r) => [r.tool.name, { readOnlyHint: r.hints.read_only, destructiveHint: r.hints.destructive, idempotentHint: r.hints.idempotent }]),
) as Readonly<Record<ToolName, ToolHints>>;

/** Table order, which is also the order tools are registered and documented. */
export const TOOL_NAMES = TOOL_ROWS.map((r) => r.tool.name as ToolName);

/** The row each tool serves. */
export const TOOL_ROW = Object.fromEntries(TOOL_ROWS.map((r) => [r.tool.name, r])) as Readonly<Record<ToolName, ToolRow>>;

/** The core operation each tool calls. */
export function operationOf(name: ToolName): OperationName {
  return TOOL_ROW[name].name;
}

export type ToolAnnotationSet = ToolHints & { openWorldHint: false };

/** The annotations a tool advertises: its row's hints, plus the closed-world hint every tool shares. */
export function annotationsOf(name: ToolName): ToolAnnotationSet {
  return { ...TOOL_TABLE[name], openWorldHint: false };
}
