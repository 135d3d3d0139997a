import { existsSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type { Citation, MemoryRecord } from "../model/record.js";
import { FAIL_ON, type FailOn } from "./fail-on.js";
import { repoIdentity, scopeRepo } from "./repo-identity.js";

export const TIERS = ["valid", "moved", "broken", "unverifiable"] as const;
export type Tier = (typeof TIERS)[number];

export { FAIL_ON, type FailOn };

/** One citation's verdict. Never carries the excerpt itself. */
export type CitationFinding = {
  id: string;
  short_id: string;
  scope: string;
  index: number;
  kind: string;
  ref: string;
  locator: string;
  tier: Tier;
  reason: string;
};

export type VerifyReport = {
  work_tree: string;
  repo: string;
  records: number;
  citations: number;
  counts: Record<Tier, number>;
  findings: CitationFinding[];
};

function startLine(locator: string): number | undefined {
  const m = /^(\d+)(?:-(\d+))?$/.exec(locator.trim());
  return m ? Number(m[1]) : undefined;
}

/** Byte offset at which line `n` (1-based) starts, or undefined past the end. */
function lineOffset(text: string, n: number): number | undefined {
  if (n < 1) return undefined;
  let offset = 0;
  for (let line = 1; line < n; line++) {
    const nl = text.indexOf("\n", offset);
    if (nl < 0) return undefined;
    offset = nl + 1;
  }
  return offset;
}

/**
 * Checks one citation against the working tree, in order: not checkable
 * here (kind, absolute ref, outside the tree, another repository), file
 * missing, no cached excerpt, excerpt at its locator, excerpt elsewhere in
 * the file, excerpt gone.
 */
export function verifyCitation(c: Citation, scope: string, workTree: string, repo: string): { tier: Tier; reason: string } {
  if (c.kind !== "file") return { tier: "unverifiable", reason: `kind ${c.kind || "(none)"} is not file` };
  const owner = scopeRepo(scope);
  if (owner !== undefined && owner !== repo) return { tier: "unverifiable", reason: "record belongs to another repository" };
  if (isAbsolute(c.ref)) return { tier: "unverifiable", reason: "absolute ref" };
  const root = realpathSync(workTree);
  const path = resolve(root, c.ref);
  if (!existsSync(path)) {
    if (relative(root, path).startsWith("..")) return { tier: "unverifiable", reason: "ref resolves outside the working tree" };
    return { tier: "broken", reason: "file missing" };
  }
  const real = realpathSync(path);
  const rel = relative(root, real);
  if (rel.startsWith("..") || isAbsolute(rel)) return { tier: "unverifiable", reason: "ref resolves outside the working tree" };
  if (!c.excerpt) return { tier: "unverifiable", reason: "no cached excerpt" };
  const text = readFileSync(real, "utf8");
  const line = startLine(c.locator);
  const at = line === undefined ? undefined : lineOffset(text, line);
  if (at !== undefined && text.startsWith(c.excerpt, at)) return { tier: "valid", reason: "excerpt at locator" };
  const found = text.indexOf(c.excerpt);
  if (found >= 0) return { tier: "moved", reason: `excerpt found at byte ${Buffer.byteLength(text.slice(0, found))}` };
  return { tier: "broken", reason: "excerpt gone" };
}

export function verifyRecords(records: readonly MemoryRecord[], workTree: string): VerifyReport {
  const repo = repoIdentity(workTree);
  const report: VerifyReport = {
    work_tree: workTree,
    repo,
    records: 0,
    citations: 0,
    counts: { valid: 0, moved: 0, broken: 0, unverifiable: 0 },
    findings: [],
  };
  for (const r of records) {
    if (r.citations.length === 0) continue;
    report.records++;
    r.citations.forEach((c, index) => {
      const { tier, reason } = verifyCitation(c, r.scope, workTree, repo);
      report.citations++;
      report.counts[tier]++;
      report.findings.push({ id: r.id, short_id: r.short_id, scope: r.scope, index, kind: c.kind, ref: c.ref, locator: c.locator, tier, reason });
    });
  }
  return report;
}

/** Whether the tier named by --fail-on has findings (any = any tier but valid). */
export function failsOn(report: VerifyReport, failOn: FailOn): boolean {
  if (failOn === "any") return report.counts.moved + report.counts.broken + report.counts.unverifiable > 0;
  return report.counts[failOn] > 0;
}
