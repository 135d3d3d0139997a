/**
 * What one row of the operation table holds, and the helpers that build one.
 * A row binds an operation's function to the JSON kind of each argument it
 * takes (in the order the arguments are checked), says whether the caller's
 * lane picks its defaults, and describes the operation once for every lane:
 * its behaviour hints, the MCP tool that serves it (name, description,
 * argument docs, answer) and the CLI verb that calls it. The lanes derive
 * their tables from the rows instead of keeping their own.
 *
 * A kinds row is checked against the function's own argument type: a field
 * without a kind, or a kind without a field, fails to compile.
 */
import type { RuleId } from "../argerror/index.js";
import type { Subject } from "../model/subject.js";
import type { KindsOf } from "./arg-kinds.js";
import type { CoreDeps } from "./deps.js";
import type { Lane } from "./limits.js";

/**
 * What a call may do, true only when it holds for every valid call (the
 * conservative reading). MCP advertises these as tool annotations, the CLI as
 * each verb's blast radius, and Connect lets a console session without its
 * CSRF token call only the read-only ones.
 */
export type Hints = { readonly read_only: boolean; readonly destructive: boolean; readonly idempotent: boolean };

export const READS: Hints = { read_only: true, destructive: false, idempotent: true };
/** Adds a record each time it is called. */
export const ADDS: Hints = { read_only: false, destructive: false, idempotent: false };
/** Changes state that a repeat leaves as it is, and nothing it changes is lost. */
export const SETS: Hints = { read_only: false, destructive: false, idempotent: true };
/** Changes or removes what was there before; a repeat finds it done. */
export const REPLACES: Hints = { read_only: false, destructive: true, idempotent: true };

/** A successful tool call as MCP answers it: the human line first, then the structured result. */
export type ToolAnswer = { readonly text: string; readonly structured: Record<string, unknown> };

/** What an answer needs from the lane: a refused batch record said as that record's own call would be. */
export type ToolLane = { readonly refusal: (err: unknown) => { code: string; message: string } };

/** An argument's description on the tool; a list may also advertise a least length it does not enforce. */
export type FieldDoc = string | { readonly doc: string; readonly minItems: number };

/**
 * The MCP tool serving an operation. `fields` lists, in the order the tool
 * shows them, the arguments it offers with their descriptions; a core
 * argument left out is not offered on this lane. `rename` gives the ones the
 * tool calls otherwise.
 */
export type ToolColumn<A, R, N extends string = string> = {
  readonly name: N;
  readonly description: string;
  readonly fields: { readonly [F in keyof A]?: FieldDoc };
  readonly rename?: { readonly [F in keyof A]?: string };
  readonly answer: (r: R, a: A, lane: ToolLane) => ToolAnswer;
};

/**
 * How an operation is described to the lanes. `verb` is the CLI command that
 * calls it, when there is one; `verbRules` are the declared rules that verb
 * checks before dialing, where the CLI is stricter than the wire or would
 * otherwise send nothing the server could judge.
 */
type About<A, R, N extends string, V extends string> = {
  readonly hints: Hints;
  readonly tool?: ToolColumn<A, R, N>;
  readonly verb?: V;
  readonly verbRules?: readonly RuleId[];
};

/** A row's tool column: absent when the row names no tool. */
type ToolOf<A, R, N extends string> = [N] extends [never] ? undefined : ToolColumn<A, R, N>;

/** A row's verb: absent when the row names none. */
type VerbOf<V extends string> = [V] extends [never] ? undefined : V;

/** A kinds row that names no field the arguments lack (a missing one already breaks `KindsOf`). */
type NoStrayKinds<K, A> = { readonly [F in Exclude<keyof K, keyof A>]: never };

type Described<T, V = string | undefined> = {
  readonly hints: Hints;
  readonly tool: T;
  readonly verb: V;
  readonly verbRules: readonly RuleId[];
};

/** Takes the caller's subject and arguments; the same on every lane. */
export type Plain<A, R, T = ToolColumn<A, R> | undefined, V = string | undefined> = {
  readonly form: "plain";
  readonly kinds: KindsOf<A>;
  readonly run: (deps: CoreDeps, s: Subject, a: A) => Promise<R>;
} & Described<T, V>;
/**
 * Also takes the caller's lane, whose defaults it applies. `paged` operations
 * name the page token by the lane's own name in a type error, as in every
 * other page-token error.
 */
export type Laned<A, R, T = ToolColumn<A, R> | undefined, V = string | undefined> = {
  readonly form: "laned";
  readonly kinds: KindsOf<A>;
  readonly paged: boolean;
  readonly run: (deps: CoreDeps, s: Subject, a: A, lane: Lane) => Promise<R>;
} & Described<T, V>;
/** Takes only the caller: nothing to check. */
export type SubjectOnly<R, V = string | undefined> = { readonly form: "subject"; readonly run: (deps: CoreDeps, s: Subject) => Promise<R> } & Described<undefined, V>;
/** Reports on the whole store; the lane decides who may ask. */
export type StoreWide<R, V = string | undefined> = { readonly form: "store"; readonly run: (deps: CoreDeps) => Promise<R> } & Described<undefined, V>;

function described<T>(about: { readonly hints: Hints; readonly tool?: T; readonly verb?: string; readonly verbRules?: readonly RuleId[] }) {
  return { hints: about.hints, tool: about.tool, verb: about.verb, verbRules: about.verbRules ?? [] };
}

export function plain<A, R, const K extends KindsOf<A>, const N extends string = never, const V extends string = never>(
  run: (deps: CoreDeps, s: Subject, a: A) => Promise<R>,
  kinds: K & NoStrayKinds<K, A>,
  about: About<A, R, N, V>,
): Plain<A, R, ToolOf<A, R, N>, VerbOf<V>> {
  return { form: "plain", kinds, run, ...described(about) } as unknown as Plain<A, R, ToolOf<A, R, N>, VerbOf<V>>;
}

export function laned<A, R, const K extends KindsOf<A>, const N extends string = never, const V extends string = never>(
  run: (deps: CoreDeps, s: Subject, a: A, lane: Lane) => Promise<R>,
  kinds: K & NoStrayKinds<K, A>,
  about: About<A, R, N, V> & { readonly paged?: boolean },
): Laned<A, R, ToolOf<A, R, N>, VerbOf<V>> {
  return { form: "laned", kinds, paged: about.paged ?? false, run, ...described(about) } as unknown as Laned<A, R, ToolOf<A, R, N>, VerbOf<V>>;
}

export function subjectOnly<R, const V extends string = never>(
  run: (deps: CoreDeps, s: Subject) => Promise<R>,
  about: { readonly hints: Hints; readonly verb?: V },
): SubjectOnly<R, VerbOf<V>> {
  return { form: "subject", run, ...described(about), tool: undefined } as SubjectOnly<R, VerbOf<V>>;
}

export function storeWide<R, const V extends string = never>(
  run: (deps: CoreDeps) => Promise<R>,
  about: { readonly hints: Hints; readonly verb?: V },
): StoreWide<R, VerbOf<V>> {
  return { form: "store", run, ...described(about), tool: undefined } as StoreWide<R, VerbOf<V>>;
}
