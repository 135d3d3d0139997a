import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Option, type Command } from "commander";
import { collectEntries, completesTo, type OutputMode, progressFor, table, usageError, writeDocument } from "../cli-kit/index.js";
import { argError, ruleError, RULES } from "../argerror/index.js";
import type { PurgeReport } from "../operator/index.js";
// The class table itself, from its own light module: the flag is checked before anything heavy loads.
import { checkPurgeFilter, PURGE_CLASSES, type PurgeClass } from "../operator/purge.js";
import { addOutputFlag, addSweepTimeoutFlag, asUsage, outputMode, parseSweepTimeout, SweepTimeoutError, flagRefusal } from "./common.js";
import { addOlderThanFlag, loopHooks, parseOlderThan, scopeChoice, sweepTimedOut } from "./lifecycle.js";
import { SWEEP_CHECK, withServingStore } from "./store.js";

/**
 * `engram spine-review purge`: deletes archived, superseded and expired
 * records past their windows, or what a free-form filter selects. Preview
 * unless --apply; an apply derives the set twice in the one run and deletes
 * only what both derivations hold (src/operator/purge.ts).
 */

type PurgeFlags = {
  class?: string[];
  category?: string;
  tags?: string[];
  olderThan?: string;
  scope?: string;
  allScopes?: boolean;
  apply?: boolean;
  output?: OutputMode;
  timeout?: string;
};

const CLASS_SENTENCE = `class must be one of ${PURGE_CLASSES.join("|")}`;
const NOTHING_SELECTED = "purge needs --class (superseded, expired or archived), or a filter (--category, --tags, --older-than) with --scope or --all-scopes";

/**
 * TEST ONLY (docs/cli-lifecycle.md says so): a directory where an apply writes
 * `derived` after its first derivation and waits (at most a minute) for
 * `resume` before its second, so a test can write a record in between.
 */
export const PURGE_HANDSHAKE_ENV = "ENGRAM_TEST_PURGE_HANDSHAKE";
const HANDSHAKE_WAIT_MS = 60_000;

async function handshake(dir: string): Promise<void> {
  writeFileSync(join(dir, "derived"), "");
  const until = Date.now() + HANDSHAKE_WAIT_MS;
  while (!existsSync(join(dir, "resume")) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

export function purgeText(r: PurgeReport): string {
  const what = `${r.classes.length > 0 ? `class ${r.classes.join(",")}` : "the filter"}, ${r.scope === null ? "every scope" : `scope ${r.scope}`}`;
  const head = r.dry_run
    ? r.eligible === 0
      ? `preview: no record is eligible (${what}); nothing to purge`
      : `preview: ${r.eligible} record(s) eligible (${what}) would be deleted; nothing was written (run with --apply)`
    : `deleted ${r.deleted} record(s) (${what}); ${r.spared} spared (no longer eligible), ${r.appeared} appeared since the first derivation and were kept (run again to include them)`;
  if (r.results.length === 0) return head;
  return `${head}\n\n${table(
    ["ID", "SCOPE", "CATEGORY", "CLASS", "OUTCOME"],
    r.results.map((x) => [x.short_id || x.id, x.scope, x.category || "-", x.class, x.outcome]),
  )}`;
}

function classesOf(values: readonly string[] | undefined): PurgeClass[] {
  const out: PurgeClass[] = [];
  for (const v of values ?? []) {
    if (!(PURGE_CLASSES as readonly string[]).includes(v)) throw usageError(argError("class", "enum", CLASS_SENTENCE).message);
    if (!out.includes(v as PurgeClass)) out.push(v as PurgeClass);
  }
  return out;
}

async function runPurge(o: PurgeFlags): Promise<void> {
  const classes = classesOf(o.class);
  const olderThanS = parseOlderThan(o.olderThan);
  const { scope, chosen } = scopeChoice(o);
  const category = o.category;
  const tags = o.tags ?? [];
  try {
    checkPurgeFilter(category, tags);
  } catch (err) {
    throw asUsage(err);
  }
  const filterPath = category !== undefined || tags.length > 0 || (olderThanS !== undefined && classes.length === 0);
  if (classes.length === 0 && !filterPath) throw flagRefusal(["--class", "--category", "--tags", "--older-than"], "required", NOTHING_SELECTED);
  if (filterPath && !chosen) throw usageError(ruleError("purge-filter-requires-scope").message);
  const output = outputMode(o.output);
  const timeoutMs = parseSweepTimeout(o.timeout);
  const apply = o.apply === true;
  const progress = progressFor(apply);
  const handshakeDir = process.env[PURGE_HANDSHAKE_ENV];
  const { purge } = await import("../operator/index.js");
  const report = await withServingStore(
    async ({ store }) => {
      const hooks = loopHooks("deleted", progress, timeoutMs);
      try {
        return await purge(store, {
          classes,
          scope,
          category,
          tags,
          olderThanS,
          apply,
          now: () => Math.floor(Date.now() / 1000),
          onProgress: hooks.onProgress,
          ...(handshakeDir ? { betweenDerivations: () => handshake(handshakeDir) } : {}),
        });
      } catch (err) {
        if (err instanceof SweepTimeoutError) {
          throw sweepTimedOut(`${hooks.done()} record(s) were deleted in committed batches, and stay deleted`, "engram spine-review purge --apply …");
        }
        throw err;
      } finally {
        hooks.reporter.finish();
      }
    },
    process.env,
    SWEEP_CHECK,
  );
  writeDocument(output, report, () => purgeText(report));
}

export function registerSpineReviewPurge(group: Command): void {
  const rule = RULES["purge-filter-requires-scope"].sentence;
  const cmd = group
    .command("purge")
    .summary("delete archived, superseded and expired records past their windows, any owner (preview unless --apply)")
    .description(
      "Delete records recall no longer shows: --class archived (archived at least 90 days ago), superseded (its successor still exists) " +
        "and expired (not_after lapsed), each counted in the first class that applies; --older-than replaces every selected class's window. " +
        "--category and --tags narrow the classes; with no class, they and --older-than (created at least that long ago) select records " +
        `directly, live ones included, and ${rule}. Without --scope or --all-scopes a class-only purge spans every scope. ` +
        "Discoveries and rules are never purged. --apply derives the set twice in this one run and deletes only the records both hold: " +
        "one that became eligible in between is reported as appeared and kept. A preview cannot be carried into a later run. " +
        `Without --apply it only counts: ${RULES["destructive-requires-apply"].sentence}.`,
    )
    .addOption(completesTo(new Option("--class <class>", "superseded, expired or archived; repeat or comma-separate for several").argParser(collectEntries), PURGE_CLASSES))
    .option("--category <category>", "only records of this category (engages the filter path)")
    .addOption(new Option("--tags <tag>", "only records carrying every listed tag; repeat or comma-separate (engages the filter path)").argParser(collectEntries))
    .option("--scope <scope>", "work on this one scope")
    .option("--all-scopes", "work on every scope, every owner");
  addOlderThanFlag(cmd, "the window, e.g. 2160h; with a class it replaces the class's own (0 for superseded and expired, 2160h for archived); with none, records created at least this long ago");
  cmd.option("--apply", "write: delete the records instead of previewing");
  addOutputFlag(cmd);
  addSweepTimeoutFlag(cmd);
  cmd.action(async (o: PurgeFlags) => runPurge(o));
}
