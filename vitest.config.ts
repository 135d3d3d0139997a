import { defineConfig } from "vitest/config";

/**
 * The end-to-end files that run a second time with every server they start
 * on the loopback Qdrant fake (ENGRAM_TEST_STORE=qdrant-fake; see
 * test/helpers/test-store.ts): every Connect, MCP, CLI-client and server
 * file whose records reach the store, and whose behaviour does not depend
 * on the embedded SQLite file.
 *
 * Embedded-only, and why:
 * - the lanes' refusals and protocol: connect-decode, connect-validation,
 *   connect-validation-curation, connect-request-bodies, mcp-arguments,
 *   mcp-tools-surface, mcp-parity, fuzz-connect, fuzz-mcp, origin,
 *   listener-limits, grpc-reflection, cli-exit-codes-usage and
 *   cli-exit-codes-client. What they check is decided before the core asks
 *   the store anything (or is the lanes agreeing with each other), so the
 *   store behind the server changes none of it; the files above cover every
 *   lane's reads and writes on the fake, and store-conformance-qdrant the
 *   store itself.
 * - storage-faults-start, storage-faults-disk-full, storage-faults-shutdown:
 *   they break the SQLite file itself (tmpfs full, read-only, damaged).
 * - storage-layout-upgrade, migrations, migration-registry, write-path-gate, embedded-store,
 *   store-conformance-embedded, data-dir: the embedded file's layout, codec path
 *   and migration internals.
 * - vector-index, vector-snapshot-catch-up, vector-snapshot-damage: the embedded store's in-process
 *   vector index and its snapshot file.
 * - access-counts: the embedded access coalescer, read back from the file.
 * - export-import: `engram export` and `engram backup` read the SQLite file
 *   (the Qdrant side of import is export-import-qdrant, which runs always).
 * - cli-reindex, reindex, spine-review: operator verbs on the embedded file;
 *   their Qdrant runs are their own files (cli-operator-qdrant,
 *   cli-reindex-qdrant, reindex-qdrant, qdrant-migration-store,
 *   cli-operator-store-choice), which start a fake of their own and run in the
 *   embedded project.
 * cli-operator-migrate and cli-operator-spine-review run here for their usage
 * refusals (with the Qdrant collection configured, which must get no request);
 * their tests over the seeded SQLite file skip on the fake with the reason in
 * their names.
 * - core-curation and the other unit and doc files: no server, no store choice.
 * - mcp-clients-doc: it starts each documented client config and lists the
 *   tools, which no store takes part in.
 * The qdrant-* files and store-conformance-qdrant are on the fake already.
 */
const ON_QDRANT_FAKE = [
  "test/test-store.test.ts",
  "test/tracing.test.ts",
  "test/archive-restore.test.ts",
  "test/count-memories.test.ts",
  "test/cli-client.test.ts",
  "test/cli-exit-codes-operator.test.ts",
  "test/cli-operator-migrate.test.ts",
  "test/cli-operator-spine-review.test.ts",
  "test/cli-read-verbs.test.ts",
  "test/cli-remap-owner.test.ts",
  "test/cli-summaries.test.ts",
  "test/connect-e2e.test.ts",
  "test/embed-pool.test.ts",
  "test/embed-unavailable.test.ts",
  "test/mcp-e2e.test.ts",
  "test/mcp-tools-calls.test.ts",
  "test/metrics.test.ts",
  "test/reference-answers.test.ts",
  "test/response-budget.test.ts",
  "test/search-recall.test.ts",
  "test/serve-binary.test.ts",
  "test/supersede.test.ts",
  "test/records-across-lanes.test.ts",
  "test/connect-responses.test.ts",
  "test/store-rule-replace.test.ts",
  "test/store-memories.test.ts",
  "test/ui-console.test.ts",
  "test/ui-sign-out.test.ts",
  "test/write-closure.test.ts",
];

const shared = {
  // The CLI under test is the compiled dist/: build it (incrementally) before any file runs.
  globalSetup: ["test/setup/build-dist.ts"],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    // End-to-end suites start real servers and child processes; two cores
    // are all a CI machine has, so keep file-level parallelism modest.
    maxWorkers: 2,
    // One `npm test` reports both runs (CI reads one JSON report).
    projects: [
      { test: { ...shared, name: "embedded", include: ["test/**/*.test.ts"] } },
      {
        test: {
          ...shared,
          name: "qdrant-fake",
          include: ON_QDRANT_FAKE,
          env: { ENGRAM_TEST_STORE: "qdrant-fake" },
          setupFiles: ["test/setup/qdrant-fake-file.ts"],
        },
      },
    ],
  },
});
