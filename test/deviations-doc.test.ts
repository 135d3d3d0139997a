/**
 * The "Deliberate deviations from the reference" section of
 * docs/architecture.md states numbers the code holds: the RPC count of the
 * proto, the current schema version, the list_scheduled states, and the
 * v0 → v1 step's reason taken word for word from the reference.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCHEDULE_STATES } from "../src/core/index.js";
import { STORE_KINDS } from "../src/core/store-kinds.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { STEPS } from "../src/store/migrations/registry.js";
import { CURRENT_SCHEMA_VERSION } from "../src/store/schema-version.js";

const DOC = readFileSync(new URL("../docs/architecture.md", import.meta.url), "utf8");
const SECTION = DOC.slice(DOC.indexOf("## Deliberate deviations from the reference")).replace(/\s+/g, " ");
/** Beside the checkout, not in it; a checkout without it skips the one check that reads it. */
const REFERENCE_FILE = new URL("../../shared/reference/engram-functional-spec.md", import.meta.url);
const REFERENCE = existsSync(REFERENCE_FILE) ? readFileSync(REFERENCE_FILE, "utf8").replace(/\s+/g, " ") : "";

describe("docs/architecture.md: deliberate deviations from the reference", () => {
  it("has the section", () => {
    expect(DOC).toContain("\n## Deliberate deviations from the reference\n");
  });

  it("counts the RPCs the proto defines, and names the three the reference lacks", () => {
    const methods = EngramService.methods.map((m) => m.name);
    expect(SECTION).toContain(`**${methods.length} RPCs, not 19.**`);
    expect(methods.slice(-3)).toEqual(["StoreRule", "DeleteAll", "StoreMemories"]);
    expect(SECTION).toContain("adds `StoreRule` and `DeleteAll`");
    expect(SECTION).toContain("and then `StoreMemories`");
    expect(SECTION).toContain("and `CountMemories`");
  });

  it("counts its deviations, and names worktree as the one write argument every lane shares", () => {
    const bullets = SECTION.split(" - **").length - 1;
    expect(SECTION).toContain(`in ${["", "one", "two", "three", "four", "five", "six", "seven"][bullets]} places`);
    expect(Object.keys(STORE_KINDS)).toContain("worktree");
    expect(Object.keys(STORE_KINDS)).not.toContain("worktree_path");
    expect(SECTION).toContain("engram's tools take `worktree`");
  });

  it("names the current schema version", () => {
    expect(SECTION).toContain(`**Current schema version ${CURRENT_SCHEMA_VERSION}, not 1.**`);
  });

  it("names every list_scheduled state the core accepts, in its order", () => {
    expect(SECTION).toContain(`state must be one of ${SCHEDULE_STATES.join("|")}`);
  });

  it.skipIf(REFERENCE === "")("declares the v0 → v1 step irreversible with the reference's own reason", () => {
    const r = STEPS[0]!.reversibility;
    expect(r.kind).toBe("irreversible");
    const reason = r.kind === "irreversible" ? r.reason : "";
    expect(REFERENCE).toContain(`Irreversible("${reason}")`);
  });
});
