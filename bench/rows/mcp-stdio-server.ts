/**
 * The read-cost bench's stdio MCP server: `engram mcp`'s serveStdio over a
 * store the bench seeded (ENGRAM_DATA_DIR, opened by the bench process as
 * well) with the fake embedder the in-process rows use, plus the no-op tool.
 * Run as a child process, its stdin/stdout the MCP pipe.
 */
import { ANONYMOUS, createCore, DEFAULT_LIMITS, silentLogger } from "../../src/core/index.js";
import { FakeEmbedder } from "../../src/embed/index.js";
import { serveStdio } from "../../src/mcp/index.js";
import { EmbeddedStore } from "../../src/store/embedded/embedded-store.js";
import { NOOP_TOOL } from "./noop-tool.js";

const dim = Number(process.env.ENGRAM_BENCH_DIM);
const store = EmbeddedStore.open({ dataDir: process.env.ENGRAM_DATA_DIR!, dim });
const core = createCore({ store, embedder: new FakeEmbedder(dim), limits: DEFAULT_LIMITS, now: () => new Date(), log: silentLogger });
await serveStdio({ core }, ANONYMOUS, NOOP_TOOL);
await store.close();
