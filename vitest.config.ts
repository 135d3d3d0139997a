import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The CLI under test is the compiled dist/: build it (incrementally) before any file runs.
    globalSetup: ["test/setup/build-dist.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end suites start real servers and child processes; two cores
    // are all a CI machine has, so keep file-level parallelism modest.
    maxWorkers: 2,
  },
});
