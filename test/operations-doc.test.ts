import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createMetrics, READY_PARTS } from "../src/observe/index.js";

const ROOT = new URL("..", import.meta.url).pathname;
const doc = readFileSync(join(ROOT, "docs/operations.md"), "utf8");

describe("docs/operations.md", () => {
  it("documents exactly the engram_ metrics a server exports", async () => {
    const { body } = await createMetrics().render();
    const exported = [...body.matchAll(/^# TYPE (engram_\w+) (\w+)$/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    const documented = [...doc.matchAll(/^\| `(engram_\w+)` \| (\w+) \|/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    expect(documented).toEqual(exported);
  });

  it("names every part the readiness gauge reports", () => {
    expect(doc).toContain(`\`part\` (${READY_PARTS.map((p) => `\`${p}\``).join(", ")})`);
  });
});
