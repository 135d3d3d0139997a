import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const DIR = new URL("../src/store/qdrant/", import.meta.url).pathname;
/** Client methods that reach /points/search, /recommend or /discover: removed from REST in Qdrant 1.19. */
const FORBIDDEN = /\.\s*(search|searchBatch|searchPointGroups|recommend|recommendBatch|recommendPointGroups|discoverPoints|discoverBatchPoints)\s*\(/;

describe("the Qdrant store speaks only the Query API", () => {
  it("no file under src/store/qdrant calls search, recommend or discover on the client", () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(3);
    const offenders = files.filter((f) => FORBIDDEN.test(readFileSync(join(DIR, f), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")));
    expect(offenders).toEqual([]);
    // Guards the guard: the pattern does catch a call.
    expect(FORBIDDEN.test("this.client.search(alias, {})")).toBe(true);
    expect(readFileSync(join(DIR, "qdrant-store.ts"), "utf8")).toContain("this.client.query(");
  });
});
