import { fromBinary, toBinary, toJson } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { toPbMemory } from "../src/connect/index.js";
import type { MemoryView } from "../src/core/index.js";
import { MemorySchema } from "../src/gen/engram/v1/engram_pb.js";

const FULL: MemoryView = {
  id: "10000000-0000-4000-8000-000000000001",
  short_id: "R000000001",
  content: "the content",
  scope: "repo:a",
  repo: "a",
  workspace: "ws",
  worktree: "wt",
  base_dir: "/base",
  source: "user-said",
  category: "decision",
  tags: ["x", "y"],
  actor: "agent",
  owner: "alice",
  visibility: "shared",
  created_at: "2026-01-02T03:04:05.678Z",
  summary: "sum",
  summary_source: "caller",
  summary_model: "m1",
  summary_egress_at: "2026-01-03T00:00:00Z",
  score: 0.5,
  access_count: 7,
  last_accessed_at: "1969-12-31T23:59:59.500Z",
  kind: "rule",
  citations: [{ kind: "file", ref: "src/a.ts", locator: "L1", pin: "abc", excerpt: "e" }],
  superseded_by: "10000000-0000-4000-8000-000000000002",
  supersedes: ["10000000-0000-4000-8000-000000000003"],
  not_before: "2026-01-01T00:00:00Z",
  not_after: "2027-01-01T00:00:00Z",
  archived_at: "2026-06-01T00:00:00Z",
  schema_version: 3,
  truncated: true,
};

describe("the Memory message a Connect answer carries", () => {
  it("has every field of a full record, timestamps included, in JSON and in binary", () => {
    const m = toPbMemory(FULL);
    expect(toJson(MemorySchema, m)).toEqual({
      id: FULL.id,
      shortId: "R000000001",
      content: "the content",
      scope: "repo:a",
      repo: "a",
      workspace: "ws",
      worktree: "wt",
      baseDir: "/base",
      source: "user-said",
      category: "decision",
      tags: ["x", "y"],
      actor: "agent",
      owner: "alice",
      visibility: "shared",
      createdAt: "2026-01-02T03:04:05.678Z",
      summary: "sum",
      summarySource: "caller",
      summaryModel: "m1",
      summaryEgressAt: "2026-01-03T00:00:00Z",
      score: 0.5,
      accessCount: "7",
      lastAccessedAt: "1969-12-31T23:59:59.500Z",
      kind: "rule",
      citations: [{ kind: "file", ref: "src/a.ts", locator: "L1", pin: "abc", excerpt: "e" }],
      supersededBy: "10000000-0000-4000-8000-000000000002",
      supersedes: ["10000000-0000-4000-8000-000000000003"],
      notBefore: "2026-01-01T00:00:00Z",
      notAfter: "2027-01-01T00:00:00Z",
      archivedAt: "2026-06-01T00:00:00Z",
      schemaVersion: 3,
      truncated: true,
    });
    expect(fromBinary(MemorySchema, toBinary(MemorySchema, m))).toEqual(m);
  });

  it("leaves out every timestamp and optional field a record does not have, summary_model included", () => {
    const m = toPbMemory({ id: "i", created_at: "2026-01-02T03:04:05Z", citations: [{ kind: "file", ref: "r" } as never] });
    expect(toJson(MemorySchema, m)).toEqual({
      id: "i",
      createdAt: "2026-01-02T03:04:05Z",
      citations: [{ kind: "file", ref: "r" }],
      schemaVersion: 0,
    });
    expect(Object.keys(m)).not.toContain("lastAccessedAt");
    expect(Object.keys(m)).not.toContain("summaryModel");
    expect(fromBinary(MemorySchema, toBinary(MemorySchema, m)).summaryModel).toBeUndefined();
    expect(Object.keys(m)).not.toContain("supersededBy");
  });
});
