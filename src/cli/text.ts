import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { pad, table } from "../cli-kit/index.js";
import type { Memory } from "../gen/engram/v1/engram_pb.js";

/** Human views. They are for reading; scripts use --output json. */

const SUMMARY_MAX = 80;

/** The first line of the summary (or of the content when there is none), at most 80 characters. */
export function summaryCell(m: Memory): string {
  const source = m.summary !== "" ? m.summary : m.content;
  const first = source.split(/\r?\n/, 1)[0] ?? "";
  const chars = Array.from(first);
  return chars.length > SUMMARY_MAX ? chars.slice(0, SUMMARY_MAX).join("") + "…" : first;
}

function after(ts: Timestamp | undefined, now: Date): boolean {
  return ts !== undefined && timestampDate(ts).getTime() > now.getTime();
}

/** Why a record is outside normal recall, in a fixed order; empty for a live record. */
export function stateWords(m: Memory, now: Date): string[] {
  const words: string[] = [];
  if (m.archivedAt !== undefined) words.push("archived");
  if (m.supersededBy !== undefined && m.supersededBy !== "") words.push("superseded");
  if (m.notAfter !== undefined && !after(m.notAfter, now)) words.push("expired");
  if (after(m.notBefore, now)) words.push("scheduled");
  return words;
}

/** `SHORT_ID  SCOPE  CATEGORY  [SCORE]  [STATE]  SUMMARY`; STATE appears only when a row has one. */
export function memoryTable(memories: readonly Memory[], opts: { score: boolean; now: Date }): string {
  const states = memories.map((m) => stateWords(m, opts.now).join(","));
  const withState = states.some((s) => s !== "");
  const header = ["SHORT_ID", "SCOPE", "CATEGORY"];
  if (opts.score) header.push("SCORE");
  if (withState) header.push("STATE");
  header.push("SUMMARY");
  const rows = memories.map((m, i) => {
    const row = [m.shortId, m.scope, m.category];
    if (opts.score) row.push(m.score.toFixed(4));
    if (withState) row.push(states[i]!);
    row.push(summaryCell(m));
    return row;
  });
  return table(header, rows);
}

/** The cross-spine footer: how many scopes were searched, never their names. */
export function coverageFooter(r: { searchedScopes: string[]; scopesTruncated: boolean; scopesUnknown: boolean }): string {
  if (r.scopesUnknown) return "searched_scopes: unknown";
  return `searched_scopes: ${r.searchedScopes.length}` + (r.scopesTruncated ? "  scopes_truncated: true" : "");
}

function iso(ts: Timestamp | undefined): string {
  return ts === undefined ? "" : timestampDate(ts).toISOString();
}

/** `engram get` in text: a headline, then one line per field that has a value. */
export function recordView(m: Memory, now: Date): string {
  const states = stateWords(m, now);
  const headline = `record ${m.shortId}` + (states.length > 0 ? ` (${states.join(", ")})` : "");
  const fields: [string, string][] = [
    ["id", m.id],
    ["short_id", m.shortId],
    ["scope", m.scope],
    ["category", m.category],
    ["source", m.source],
    ["kind", m.kind],
    ["tags", m.tags.join(", ")],
    ["visibility", m.visibility === "" ? "private" : m.visibility],
    ["owner", m.owner],
    ["actor", m.actor],
    ["repo", m.repo],
    ["workspace", m.workspace],
    ["worktree", m.worktree],
    ["base_dir", m.baseDir],
    ["created_at", iso(m.createdAt)],
    ["not_before", iso(m.notBefore)],
    ["not_after", iso(m.notAfter)],
    ["archived_at", iso(m.archivedAt)],
    ["superseded_by", m.supersededBy ?? ""],
    ["supersedes", m.supersedes.join(", ")],
    ["summary", m.summary],
    ["summary_source", m.summarySource],
    ["access_count", m.accessCount > 0n ? m.accessCount.toString() : ""],
    ["last_accessed_at", iso(m.lastAccessedAt)],
    ["schema_version", m.schemaVersion === undefined ? "" : String(m.schemaVersion)],
    ...m.citations.map(
      (c, i): [string, string] => [`citation[${i}]`, [c.kind, c.ref, c.locator, c.pin].filter((s) => s !== "").join(" ")],
    ),
    ["content", m.content],
  ];
  const shown = fields.filter(([, v]) => v !== "");
  const labelWidth = Math.max(...shown.map(([k]) => k.length));
  const indent = " ".repeat(labelWidth + 2);
  const lines = shown.map(([k, v]) => pad(k, labelWidth) + "  " + v.split(/\r?\n/).join("\n" + indent));
  return [headline, ...lines].join("\n");
}
