import type { MemoryRecord } from "../../src/core/index.js";

/**
 * A stored record as an older binary would have written it, numbered so
 * ids, scopes and timestamps are predictable. `extra` overrides any field.
 */
export function syntheticRecord(i: number, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    short_id: "",
    content: `record ${i} ` + "é".repeat(i % 7),
    scope: `repo:${i % 5}`,
    repo: "",
    workspace: "",
    worktree_path: "",
    base_dir: "",
    source: "user-said",
    category: "decision",
    tags: [`t${i % 3}`],
    actor: "",
    owner: "",
    visibility: "",
    created_at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    summary: "",
    summary_source: "",
    summary_model: "",
    access_count: 0,
    kind: "",
    citations: [],
    supersedes: [],
    ...extra,
  };
}

/**
 * A record numbered `i` with no tags and no optional fields, as the
 * vector-index tests write it: each file gives its own id head and short-id
 * letter, so records of different files never look alike in a failure.
 */
export function plainRecord(i: number, o: { idHead: string; shortPrefix: string; content: string; scopes: number }): MemoryRecord {
  return syntheticRecord(i, {
    id: `${o.idHead}-0000-4000-8000-${String(i).padStart(12, "0")}`,
    short_id: `${o.shortPrefix}${String(i).padStart(9, "0")}`,
    content: o.content,
    scope: `repo:${i % o.scopes}`,
    tags: [],
    created_at: new Date(1_750_000_000_000 + i).toISOString(),
  });
}
