import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCore, DEFAULT_LIMITS, type Limits } from "../../src/core/index.js";
import { FakeEmbedder } from "../../src/embed/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { captureLog } from "./capture-log.js";

/** A core over a fresh embedded store, with a clock the test can move. */
export function testCore(opts: { limits?: Partial<Limits>; start?: Date } = {}) {
  const clock = { now: opts.start ?? new Date("2026-06-01T12:00:00.000Z") };
  const embedder = new FakeEmbedder(64);
  const store = EmbeddedStore.open({ dataDir: mkdtempSync(join(tmpdir(), "engram-core-")), dim: 64 });
  const log = captureLog();
  const core = createCore({ store, embedder, limits: { ...DEFAULT_LIMITS, ...opts.limits }, now: () => clock.now, log });
  return {
    core,
    store,
    embedder,
    log,
    clock,
    /** Moves the clock forward by whole seconds. */
    advance(seconds: number) {
      clock.now = new Date(clock.now.getTime() + seconds * 1000);
    },
  };
}
