import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WRITE_ATTEMPTS } from "../src/core/conditional-write.js";
import { LANE_POLICY } from "../src/core/index.js";
import { MAY_IMPORT, OPERATOR_DEBT } from "./helpers/layers.js";

const ROOT = new URL("..", import.meta.url).pathname;
const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");

describe("docs/architecture.md", () => {
  /** The map of src/: one row per top-level folder or file, its last cell what it may import. */
  const mapRows = (() => {
    const section = doc.slice(doc.indexOf("## Map of src/"), doc.indexOf("\n## ", doc.indexOf("## Map of src/") + 1));
    return [...section.matchAll(/^\| `src\/([a-z.-]+)` \|.*\| ([^|]+) \|$/gm)].map((m) => ({
      name: m[1]!,
      mayImport: m[2]!.trim() === "nothing" ? [] : m[2]!.split(",").map((x) => x.trim().replace(/`/g, "")),
    }));
  })();

  it("maps every top-level folder and file of src, and nothing that is gone", () => {
    const entries = readdirSync(join(ROOT, "src")).filter((n) => statSync(join(ROOT, "src", n)).isDirectory() || n.endsWith(".ts"));
    expect(mapRows.map((r) => r.name).sort()).toEqual(entries.sort());
  });

  it("says of every row what it may import, exactly as the layering test holds the code to", () => {
    const fromDoc = Object.fromEntries(mapRows.map((r) => [r.name, [...r.mayImport].sort()]));
    const fromTest = Object.fromEntries(Object.entries(MAY_IMPORT).map(([k, v]) => [k, [...v].sort()]));
    expect(fromDoc).toEqual(fromTest);
  });

  it("names both storage backends in the store's row", () => {
    const row = doc.split("\n").find((l) => l.startsWith("| `src/store` |"))!;
    expect(row).toContain("`embedded/`");
    expect(row).toContain("`qdrant/`");
  });

  it("lists the same operator driver exceptions as the layering test", () => {
    for (const file of OPERATOR_DEBT.keys()) expect(doc).toContain(`\`${file}\``);
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
