/**
 * The start warning of a server with no bearer lane: it names the identity
 * settings that were set but empty (which count as unset), never a value.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serve } from "../src/app.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { captureLog } from "./helpers/capture-log.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function anonymousWarning(extra: Record<string, string>): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-anon-warning-"));
  dirs.push(dataDir);
  const log = captureLog();
  const running = await serve({ listenAddr: "127.0.0.1:0", env: { ENGRAM_DATA_DIR: dataDir, ...extra }, embedder: new FakeEmbedder(32), log });
  await running.close();
  const lines = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => String(l.msg).includes("running ANONYMOUS"));
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe("a server with no bearer lane", () => {
  it("warns that it runs anonymous, naming the identity settings that were set but empty", async () => {
    const line = await anonymousWarning({ ENGRAM_AUTH_TOKENS: "", ENGRAM_OIDC_ISSUER: "   ", ENGRAM_AUTH_TOKENS_FILE: "" });
    expect(line).toMatchObject({ level: "warn", set_but_empty: ["ENGRAM_AUTH_TOKENS", "ENGRAM_AUTH_TOKENS_FILE", "ENGRAM_OIDC_ISSUER"] });
  });

  it("names none when none was set", async () => {
    const line = await anonymousWarning({});
    expect(line.level).toBe("warn");
    expect(line).not.toHaveProperty("set_but_empty");
  });
});
