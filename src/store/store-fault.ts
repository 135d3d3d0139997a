import { Code } from "@connectrpc/connect";
import { DATA_LOSS_TEXT, unavailableText, type DataLoss, type Unavailability, type UnavailableReason } from "../argerror/index.js";

/**
 * What a fault in a store's files means to a caller. Every store maps its
 * own errors here (the embedded store its SQLite and file-system codes, a
 * networked store its client's), so a full disk, a read-only file system
 * and a damaged page read the same on every lane whatever the backend.
 */
export type StoreFault =
  | { readonly outcome: "unavailable"; readonly reason: Extract<UnavailableReason, `store_${string}`>; readonly cause: string }
  | { readonly outcome: "data_loss"; readonly cause: string };

/** Whether the failed call was a read or a write: the same I/O error means "cannot write" or "cannot read". */
export type StoreAccess = "read" | "write";

/** Cause classes that mean the data read back is not what was written. */
const DAMAGED = ["SQLITE_CORRUPT", "SQLITE_NOTADB"];
/** Cause classes that only a write can meet (no space, nothing may be written), whichever method ran into them. */
const CANNOT_WRITE = ["SQLITE_FULL", "SQLITE_READONLY", "ENOSPC", "EDQUOT", "EROFS"];
/** Cause classes that mean the files cannot be used now but may be later: the device, permissions. */
const CANNOT_NOW = ["SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_PERM", "EIO", "EACCES", "EPERM"];

/** The short cause class of an error (SQLITE_FULL, ENOSPC), never its message, which may hold a path. */
export function faultCause(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** A fault's class name only (its code, else the error's name): a log line names what failed, never a path or a value. */
export function errorName(err: unknown): string {
  return err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.name) : "unknown";
}

/** Classifies a thrown storage error; undefined when it is not a fault of the files (a bug, a rejection). */
export function storeFaultOf(err: unknown, access: StoreAccess): StoreFault | undefined {
  if (err instanceof StoreFaultError) return err.fault;
  const cause = faultCause(err);
  if (cause === undefined) return undefined;
  const family = (list: readonly string[]) => list.some((c) => cause === c || cause.startsWith(`${c}_`));
  if (family(DAMAGED)) return { outcome: "data_loss", cause };
  if (family(CANNOT_WRITE)) return { outcome: "unavailable", reason: "store_cannot_write", cause };
  if (family(CANNOT_NOW)) return { outcome: "unavailable", reason: access === "write" ? "store_cannot_write" : "store_cannot_read", cause };
  return undefined;
}

/** A store fault as the vocabulary sees it: `unavailable` or `data_loss`, with the fixed text as its message. */
export class StoreFaultError extends Error {
  override readonly name = "StoreFaultError";
  readonly code: Code;
  readonly unavailable?: Unavailability;
  readonly dataLoss?: DataLoss;
  constructor(
    readonly fault: StoreFault,
    logged: boolean,
  ) {
    super(fault.outcome === "unavailable" ? unavailableText(fault.reason) : DATA_LOSS_TEXT);
    if (fault.outcome === "unavailable") {
      this.code = Code.Unavailable;
      this.unavailable = { reason: fault.reason, cause: fault.cause, logged };
    } else {
      this.code = Code.DataLoss;
      this.dataLoss = { cause: fault.cause, logged };
    }
  }
}

/** Told about every call's outcome, so it can log a fault once per episode and say when writes work again. */
export type FaultObserver = {
  /** Returns true when the fault has been logged (now or earlier in the same episode). */
  fault(fault: StoreFault): boolean;
  writeSucceeded(): void;
  /** A fault that stands for every call until the store is replaced (a file found damaged at start). */
  blocked?(): StoreFault | undefined;
};

/** Methods that keep working on a store found damaged: shutting it down and saying it is not ready. */
const ALWAYS: ReadonlySet<PropertyKey> = new Set(["close", "readiness"]);

/**
 * Wraps a store so every method's storage faults come out as a
 * `StoreFaultError`; anything else passes through untouched. `writes` names
 * the methods that write. A store implementation calls this once on what it
 * hands out, which keeps the mapping out of every method body.
 */
export function guardStoreFaults<T extends object>(store: T, writes: ReadonlySet<PropertyKey>, observer: FaultObserver): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function" || prop === "constructor") return value;
      let fn = wrapped.get(prop);
      if (fn === undefined) {
        const access: StoreAccess = writes.has(prop) ? "write" : "read";
        const map = (err: unknown): unknown => {
          const fault = storeFaultOf(err, access);
          if (fault === undefined) return err;
          return err instanceof StoreFaultError ? err : new StoreFaultError(fault, observer.fault(fault));
        };
        const ok = <R>(result: R): R => {
          if (access === "write") observer.writeSucceeded();
          return result;
        };
        fn = (...args: unknown[]) => {
          const standing = ALWAYS.has(prop) ? undefined : observer.blocked?.();
          if (standing !== undefined) {
            const err = new StoreFaultError(standing, true);
            if (answersAsync(target, prop)) return Promise.reject(err);
            throw err;
          }
          let result: unknown;
          try {
            result = (value as (...a: unknown[]) => unknown).apply(target, args);
          } catch (err) {
            throw map(err);
          }
          if (result instanceof Promise) {
            return result.then(ok, (err: unknown) => {
              throw map(err);
            });
          }
          return ok(result);
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}

/** Whether a method answers with a promise, so a standing fault reaches its caller the same way a real one would. */
function answersAsync(target: object, prop: PropertyKey): boolean {
  const fn = Reflect.get(target, prop, target) as { constructor?: { name?: string } };
  return fn.constructor?.name === "AsyncFunction";
}
