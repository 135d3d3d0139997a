import { statSync } from "node:fs";
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { CliFailure, collectList, type OutputMode, table, usageError, writeDocument } from "../cli-kit/index.js";
import { ArgError, argError, EXIT, ruleError, RULES } from "../argerror/index.js";
import { FAIL_ON, type FailOn } from "../operator/fail-on.js";
import type { OperatorFlipRow, ScanReport, VerifyReport } from "../operator/index.js";
import { addOutputFlag, addScopeFlags, asUsage, outputMode, SCOPE_ALL_SCOPES_EXCLUSIVE, flagRefusal } from "./common.js";
import { registerSpineReviewConsolidate } from "./consolidate.js";
import { registerSpineReviewPurge } from "./purge.js";
import { withServingStore } from "./store.js";

/**
 * `engram spine-review …`: the operator's view of the whole store, every
 * owner included. scan and verify only read; archive and restore preview
 * unless --apply is given. No report carries a citation's excerpt.
 */

type ScopeFlags = { scope?: string; allScopes?: boolean; output?: OutputMode };
type VerifyFlags = ScopeFlags & { workTree?: string; failOn?: FailOn };

/**
 * --fail-on lists its tiers (help, catalog, completion) as any choices flag
 * does, and refuses another value while parsing with the rule's envelope,
 * which names the tiers and never the value typed.
 */
function failOnOption(): Option {
  return new Option("--fail-on <tier>", "exit 7 when this tier has findings (any: every tier but valid)").choices(FAIL_ON).argParser((v: string) => {
    if (!(FAIL_ON as readonly string[]).includes(v)) throw usageError(ruleError("verify-fail-on-accepted-values").message);
    return v as FailOn;
  });
}
type FlipFlags = { id?: string[]; apply?: boolean; output?: OutputMode };

export type FlipDocument = { dry_run: boolean; results: OperatorFlipRow[] };

/** Exactly one of --scope and --all-scopes; undefined means every scope. */
export function sweepScope(o: ScopeFlags): string | undefined {
  const named = o.scope !== undefined && o.scope.trim() !== "";
  if (o.allScopes && o.scope !== undefined) {
    throw usageError(argError(["scope", "all-scopes"], "mutually_exclusive", SCOPE_ALL_SCOPES_EXCLUSIVE).message);
  }
  if (o.allScopes) return undefined;
  if (!named) throw usageError(ruleError("sweep-scope-or-all-scopes-required").message);
  return o.scope;
}

// ---- text views -------------------------------------------------------------------

export function scanText(r: ScanReport): string {
  const body = table(
    ["SCOPE", "CATEGORY", "LIVE", "ARCHIVED", "EXPIRED", "SUPERSEDED", "SCHEDULED", "BYTES"],
    r.rows.map((x) => [x.scope, x.category || "-", x.live, x.archived, x.expired, x.superseded, x.scheduled, x.bytes].map(String)),
  );
  return `${body}\n\nscopes: ${r.scopes}  records: ${r.total}`;
}

export function verifyText(r: VerifyReport): string {
  const lines = [
    `checked ${r.citations} citation(s) in ${r.records} record(s) against ${r.work_tree} (repository ${r.repo})`,
    "",
    table(
      ["TIER", "COUNT"],
      (["valid", "moved", "broken", "unverifiable"] as const).map((t) => [t, String(r.counts[t])]),
    ),
  ];
  const findings = r.findings.filter((f) => f.tier !== "valid");
  if (findings.length > 0) {
    lines.push(
      "",
      table(
        ["RECORD", "SCOPE", "CITATION", "TIER", "REF", "LOCATOR", "REASON"],
        findings.map((f) => [f.short_id || f.id, f.scope, String(f.index), f.tier, f.ref, f.locator || "-", f.reason]),
      ),
    );
  }
  return lines.join("\n");
}

export function flipText(d: FlipDocument): string {
  const body = table(
    ["REQUESTED", "ID", "OUTCOME"],
    d.results.map((r) => [r.requested, r.id === "" ? "-" : r.id, r.outcome]),
  );
  return d.dry_run ? `${body}\n\npreview: nothing was written; run again with --apply to change the rows marked changed` : body;
}

// ---- running ----------------------------------------------------------------------

async function runScan(o: ScopeFlags): Promise<void> {
  const scope = sweepScope(o);
  const output = outputMode(o.output);
  const { scan } = await import("../operator/index.js");
  const report = await withServingStore(({ store }) => scan(store, scope, Math.floor(Date.now() / 1000)));
  writeDocument(output, report, () => scanText(report));
}

function workTreeOf(text: string | undefined): string {
  const dir = resolve(text ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw flagRefusal("--work-tree", "format", "--work-tree must be an existing directory");
  return dir;
}

async function runVerify(o: VerifyFlags): Promise<void> {
  const scope = sweepScope(o);
  const { failsOn, recordsWithCitations, verifyRecords } = await import("../operator/index.js");
  const failOn = o.failOn;
  const workTree = workTreeOf(o.workTree);
  const output = outputMode(o.output);
  const records = await withServingStore(({ store }) => recordsWithCitations(store, scope, Math.floor(Date.now() / 1000)));
  const report = verifyRecords(records, workTree);
  writeDocument(output, report, () => verifyText(report));
  if (failOn !== undefined && failsOn(report, failOn)) {
    const n = failOn === "any" ? report.counts.moved + report.counts.broken + report.counts.unverifiable : report.counts[failOn];
    // The command succeeded; exit 7 tells a CI step it asked to hear about these.
    throw new CliFailure(EXIT.findings, `engram: verify found ${n} citation(s) ${failOn === "any" ? "that are not valid" : `in tier ${failOn}`} (--fail-on ${failOn})`);
  }
}

/** The core names the request field `ids`; here the flag is `--id`, and the refusal names that. */
function asIdFlag(err: unknown): unknown {
  if (!(err instanceof ArgError) || !err.fields.includes("ids")) return err;
  return new ArgError(
    err.fields.map((f) => (f === "ids" ? "id" : f)),
    err.hint,
    err.detail.replace(/^ids\b/, "--id"),
    err.bounds,
  );
}

async function runFlip(o: FlipFlags, archive: boolean): Promise<void> {
  const output = outputMode(o.output);
  const [{ checkBatchIds }, { limitsFromEnv }, { operatorFlip }] = await Promise.all([
    import("../core/batch-shape.js"),
    import("../core/limits.js"),
    import("../operator/index.js"),
  ]);
  let ids: readonly string[];
  try {
    ids = checkBatchIds(o.id ?? [], limitsFromEnv(process.env));
  } catch (err) {
    throw asUsage(asIdFlag(err));
  }
  const apply = o.apply === true;
  const results = await withServingStore(({ store }) => operatorFlip(store, ids, { archive, apply, now: new Date() }));
  const doc: FlipDocument = { dry_run: !apply, results };
  writeDocument(output, doc, () => flipText(doc));
}

// ---- registration -----------------------------------------------------------------

const APPLY_RULE = RULES["destructive-requires-apply"].sentence;

export function registerOperatorSpineReview(program: Command): void {
  const group = program
    .command("spine-review")
    .summary("review the whole store: inventory, citation checks, archive, restore, purge and near-duplicates")
    .description("Operator review of the store under ENGRAM_DATA_DIR (or the Qdrant collection when ENGRAM_QDRANT_URL is set), across every owner. Pick a subcommand.");

  const scan = group
    .command("scan")
    .summary("count records by scope and category, with archived, expired and superseded buckets (read-only)")
    .description("Inventory by scope and category. The live bucket is what recall sees; archived, superseded and expired records have buckets of their own. Read-only.");
  addOutputFlag(addScopeFlags(scan)).action(async (o: ScopeFlags) => runScan(o));

  const verify = group
    .command("verify")
    .summary("check every file citation against a working tree (read-only)")
    .description(
      "Check each citation against the working tree: valid, moved, broken or unverifiable. Read-only; reports never carry excerpts. " +
        `--fail-on: ${RULES["verify-fail-on-accepted-values"].sentence}; with findings in that tier the exit status is 7.`,
    );
  addScopeFlags(verify)
    .addOption(new Option("--work-tree <path>", "the checkout citations are checked against").default(undefined, "the current directory"))
    .addOption(failOnOption());
  addOutputFlag(verify).action(async (o: VerifyFlags) => runVerify(o));

  for (const [name, archive] of [
    ["archive", true],
    ["restore", false],
  ] as const) {
    const cmd = group
      .command(name)
      .summary(archive ? "archive records by id, any owner (preview unless --apply)" : "restore archived records by id, any owner (preview unless --apply)")
      .description(
        (archive
          ? "Archive records: hidden from recall, still fetchable by id, undone by restore. "
          : "Restore archived records to recall. ") + `Without --apply it only counts: ${APPLY_RULE}.`,
      )
      .addOption(new Option("--id <id>", "UUID or short id; repeat for several").argParser(collectList))
      .option("--apply", "write: change the records instead of previewing");
    addOutputFlag(cmd).action(async (o: FlipFlags) => runFlip(o, archive));
  }
  registerSpineReviewConsolidate(group);
  registerSpineReviewPurge(group);
}
