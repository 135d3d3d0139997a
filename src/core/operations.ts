/**
 * The operation table: every core operation, each named once, in the order
 * the lanes list them (the MCP tools are registered and documented in this
 * order). The rows live beside it, one file per page of the tool docs; this file joins
 * them and derives what a lane needs. `createCore` binds every row, `ArgsOf`
 * gives a lane an operation's argument type, the Connect service must
 * implement exactly these names (a compile check in src/connect), and the MCP
 * tools, the CLI's blast radius and Connect's read-only procedures are read
 * off the rows' columns.
 */
import type { RuleId } from "../argerror/index.js";
import type { CoreDeps } from "./deps.js";
import type { Lane } from "./limits.js";
import type { Hints, ToolColumn } from "./operation-row.js";
import { CURATION_ROWS } from "./rows-curation.js";
import { MEMORY_ROWS } from "./rows-memories.js";
import type { Subject } from "../model/subject.js";

export const OPERATIONS = { ...MEMORY_ROWS, ...CURATION_ROWS };

export type OperationName = keyof typeof OPERATIONS;

type RowOf<N extends OperationName> = (typeof OPERATIONS)[N];

/** The arguments an operation takes from a lane (never for an operation that takes none). */
export type ArgsOf<N extends OperationName> = RowOf<N> extends { kinds: unknown } ? Parameters<RowOf<N>["run"]>[2] : never;

/**
 * Every argument of an operation, each named, `undefined` where the lane has
 * no such field: a lane that builds its arguments as this type fails to
 * compile when the core gains an argument the lane does not map.
 */
export type EveryArgOf<N extends OperationName> = EveryField<ArgsOf<N>>;

/** Every field of T named, each possibly undefined: a converter that forgets one fails to compile. */
export type EveryField<T> = { [F in keyof Required<T>]: Required<T>[F] | undefined };

/** How a lane calls an operation once the core is built. */
export type Bound<O> = O extends { form: "laned"; run: (deps: CoreDeps, s: Subject, a: infer A, lane: Lane) => Promise<infer R> }
  ? (s: Subject, a: A, lane: Lane) => Promise<R>
  : O extends { form: "plain"; run: (deps: CoreDeps, s: Subject, a: infer A) => Promise<infer R> }
    ? (s: Subject, a: A) => Promise<R>
    : O extends { form: "subject"; run: (deps: CoreDeps, s: Subject) => Promise<infer R> }
      ? (s: Subject) => Promise<R>
      : O extends { form: "store"; run: (deps: CoreDeps) => Promise<infer R> }
        ? () => Promise<R>
        : never;

export type CoreOperations = { readonly [N in OperationName]: Bound<RowOf<N>> };

/** The operations an MCP tool serves, and each one's tool name. */
type Tooled = { [N in OperationName]: RowOf<N>["tool"] extends { name: string } ? N : never }[OperationName];
export type ToolName = { [N in Tooled]: RowOf<N>["tool"] extends { name: infer T extends string } ? T : never }[Tooled];

/** The CLI verbs that call an operation, each named by its row. */
export type VerbName = { [N in OperationName]: RowOf<N>["verb"] }[OperationName] & string;

/** The operation a verb calls. */
export type OperationOfVerb<V extends VerbName> = { [N in OperationName]: RowOf<N>["verb"] extends V ? N : never }[OperationName];

/** One row as a lane that walks the whole table sees it: its argument and result types erased. */
export type AnyRow = {
  readonly name: OperationName;
  readonly form: "plain" | "laned" | "subject" | "store";
  readonly kinds?: Readonly<Record<string, string>>;
  readonly hints: Hints;
  readonly verb: string | undefined;
  readonly verbRules: readonly RuleId[];
  readonly tool: ToolColumn<Record<string, unknown>, unknown> | undefined;
};

/** Every row, in the table's order. */
export const OPERATION_ROWS: readonly AnyRow[] = Object.entries(OPERATIONS).map(([name, row]) => ({ ...(row as unknown as AnyRow), name: name as OperationName }));

/** The order an operation checks its arguments' kinds in (its kinds table), so every lane names the same field first. */
export function argumentOrder(operation: string): readonly string[] {
  const op = (OPERATIONS as Record<string, { kinds?: object }>)[operation];
  return op?.kinds === undefined ? [] : Object.keys(op.kinds);
}
