/**
 * The growth curve's synthetic records: short agent notes spread over ten
 * scopes with 50 tags, as the search-and-start rows seed them, each with a
 * 512-d unit vector from overlapping clusters (synthetic-vectors.ts), so
 * every size holds the same kind of data, only more of it. Deterministic:
 * record i is the same at every size and in every run.
 */
import type { MemoryRecord } from "../../src/core/index.js";
import { clustered, mulberry32 } from "../../test/helpers/synthetic-vectors.js";

export const GROWTH_DIM = 512;
export const GROWTH_SCOPES = 10;
const WORDS = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}`);

/** Sixteen words of a Zipf-like vocabulary, drawn by `rand`. */
export function sentence(rand: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(rand() ** 2 * WORDS.length)]).join(" ");
}

export function growthRecord(i: number): MemoryRecord {
  const rand = mulberry32(0x9e3779b9 ^ i);
  return {
    id: `50000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    short_id: i.toString(32).toUpperCase().padStart(10, "0"),
    content: sentence(rand, 16),
    scope: `repo:growth-${i % GROWTH_SCOPES}`,
    repo: "", workspace: "", worktree_path: "", base_dir: "",
    source: "agent-inferred", category: "decision", tags: [`t${i % 50}`], actor: "", owner: "", visibility: "",
    created_at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    summary: "", summary_source: "", summary_model: "", access_count: 0, kind: "", citations: [], supersedes: [],
  };
}

/** The vectors records get, in order: one stream for the whole curve, so a grown store holds what a fresh one would. */
export function growthVectors(): () => Float32Array {
  return clustered(4242, GROWTH_DIM);
}
