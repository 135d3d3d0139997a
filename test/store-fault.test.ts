/**
 * The one mapping from a fault in a store's files to the vocabulary. A
 * store that is not the embedded one (the networked store to come) wraps
 * itself with the same guard and gets the same answers on every lane.
 */
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { CONNECT_CODE_EXIT, DATA_LOSS_TEXT, EXIT, classify, unavailableText } from "../src/argerror/index.js";
import { guardStoreFaults, storeFaultOf, StoreFaultError } from "../src/store/store-fault.js";
import { WriteHealth } from "../src/store/embedded/write-health.js";
import { captureLog } from "./helpers/capture-log.js";

const coded = (code: string, message = `${code}: /srv/engram/engram.db said so`) => Object.assign(new Error(message), { code });

describe("storeFaultOf", () => {
  it.for([
    ["SQLITE_FULL", "read", "store_cannot_write"],
    ["SQLITE_READONLY", "write", "store_cannot_write"],
    ["SQLITE_READONLY_DBMOVED", "write", "store_cannot_write"],
    ["ENOSPC", "write", "store_cannot_write"],
    ["EROFS", "write", "store_cannot_write"],
    ["SQLITE_IOERR_WRITE", "write", "store_cannot_write"],
    ["SQLITE_IOERR_READ", "read", "store_cannot_read"],
    ["EIO", "read", "store_cannot_read"],
  ] as const)("calls %s during a %s unavailable: %s", ([code, access, reason]) => {
    expect(storeFaultOf(coded(code), access)).toEqual({ outcome: "unavailable", reason, cause: code });
  });

  it.for(["SQLITE_CORRUPT", "SQLITE_CORRUPT_INDEX", "SQLITE_NOTADB"])("calls %s data loss", (code) => {
    expect(storeFaultOf(coded(code), "read")).toEqual({ outcome: "data_loss", cause: code });
  });

  it("leaves everything else alone: a bug stays internal, a lock stays what it was", () => {
    expect(storeFaultOf(new TypeError("x is undefined"), "write")).toBeUndefined();
    expect(storeFaultOf(coded("SQLITE_BUSY"), "write")).toBeUndefined();
    expect(storeFaultOf(coded("SQLITE_CONSTRAINT_UNIQUE"), "write")).toBeUndefined();
  });
});

describe("a store wrapped by guardStoreFaults", () => {
  /** A store of another kind, failing the way its client library fails. */
  class OtherStore {
    failWith: Error | undefined;
    writes = 0;
    async put(): Promise<void> {
      if (this.failWith) throw this.failWith;
      this.writes++;
    }
    async get(): Promise<string> {
      if (this.failWith) throw this.failWith;
      return "row";
    }
    countSync(): number {
      if (this.failWith) throw this.failWith;
      return 1;
    }
  }

  function guarded() {
    const log = captureLog();
    const inner = new OtherStore();
    let probeFails = true;
    const health = new WriteHealth(log, () => {
      if (probeFails) throw coded("ENOSPC");
    }, 60_000);
    const store = guardStoreFaults(inner, new Set(["put"]), health);
    return { log, inner, store, health, letProbeSucceed: () => (probeFails = false) };
  }

  it("turns a full disk into unavailable with the fixed sentence on every lane, logged once for the episode", async () => {
    const { log, inner, store, health } = guarded();
    inner.failWith = coded("ENOSPC");
    const errors = [await store.put().catch((e: unknown) => e), await store.put().catch((e: unknown) => e)];
    for (const err of errors) {
      expect(err).toBeInstanceOf(StoreFaultError);
      const c = classify(err);
      expect({ code: c.code, message: c.message, internal: c.internal, warn: c.warn }).toEqual({
        code: Code.Unavailable,
        message: unavailableText("store_cannot_write"),
        internal: false,
        warn: undefined,
      });
      expect(CONNECT_CODE_EXIT[c.code]).toBe(EXIT.unavailable);
    }
    expect(log.lines).toEqual([JSON.stringify({ level: "warn", msg: "store cannot accept writes: writes answer unavailable until it can", cause: "ENOSPC" })]);
    expect(health.canWrite).toBe(false);
    inner.failWith = undefined;
    await store.put();
    expect(health.canWrite).toBe(true);
    expect(log.lines[1]).toBe(JSON.stringify({ level: "info", msg: "store accepts writes again", cause: "ENOSPC" }));
    health.stop();
  });

  it("ends the episode by its own probe when no caller writes", async () => {
    const { inner, store, health, letProbeSucceed } = guarded();
    inner.failWith = coded("SQLITE_FULL");
    await store.put().catch(() => undefined);
    (health as unknown as { tryProbe(): void }).tryProbe();
    expect(health.canWrite).toBe(false);
    letProbeSucceed();
    (health as unknown as { tryProbe(): void }).tryProbe();
    expect(health.canWrite).toBe(true);
  });

  it("turns damaged data into data_loss (exit 1), never internal, in sync and async methods alike", async () => {
    const { log, inner, store, health } = guarded();
    inner.failWith = coded("SQLITE_CORRUPT");
    const errors = [await store.get().catch((e: unknown) => e), (() => { try { store.countSync(); } catch (e) { return e; } })()];
    for (const err of errors) {
      const c = classify(err);
      expect({ code: c.code, message: c.message, internal: c.internal }).toEqual({ code: Code.DataLoss, message: DATA_LOSS_TEXT, internal: false });
      expect(CONNECT_CODE_EXIT[c.code]).toBe(EXIT.unclassified);
    }
    expect(log.lines).toEqual([
      JSON.stringify({ level: "error", msg: "stored data is damaged: reads of it answer data_loss; restore the store from a backup", cause: "SQLITE_CORRUPT" }),
    ]);
    expect(health.canWrite).toBe(true);
  });

  it("passes any other error through untouched, and sends no path or message to the caller", async () => {
    const { inner, store } = guarded();
    const bug = new RangeError("bad index");
    inner.failWith = bug;
    expect(await store.get().catch((e: unknown) => e)).toBe(bug);
    inner.failWith = coded("SQLITE_IOERR_READ");
    const c = classify(await store.get().catch((e: unknown) => e));
    expect(c.message).toBe(unavailableText("store_cannot_read"));
    expect(c.message).not.toContain("/srv");
    expect(c.warn).toEqual({ reason: "store_cannot_read", cause: "SQLITE_IOERR_READ" });
  });
});
