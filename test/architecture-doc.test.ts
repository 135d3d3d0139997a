import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WRITE_ATTEMPTS } from "../src/core/conditional-write.js";
import { LANE_POLICY } from "../src/core/index.js";

const ROOT = new URL("..", import.meta.url).pathname;
const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");

describe("docs/architecture.md", () => {
  it("describes every folder under src and no folder that is gone", () => {
    const folders = readdirSync(join(ROOT, "src")).filter((n) => statSync(join(ROOT, "src", n)).isDirectory());
    const documented = [...doc.matchAll(/^\| `src\/([a-z-]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(folders.sort());
  });

  it("states the lane defaults the core actually applies", () => {
    expect(doc).toContain(`search \`k\` defaults to ${LANE_POLICY.mcp.searchK} on MCP and ${LANE_POLICY.connect.searchK} on Connect`);
    expect(doc).toContain(`(default limit ${LANE_POLICY.mcp.listLimitCursor})`);
  });

  it("names the retry bound of conditional writes that the core applies", () => {
    expect(WRITE_ATTEMPTS).toBeGreaterThan(1);
    expect(doc).toContain("retries a lost race up to `WRITE_ATTEMPTS` times (`src/core/conditional-write.ts`)");
  });
});
