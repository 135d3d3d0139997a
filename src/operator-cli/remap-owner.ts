import { Option, type Command } from "commander";
import { type OutputMode, progressFor, ProgressReporter, table, usageError, writeDocument } from "../cli-kit/index.js";
import { argError, EXIT, RULES } from "../argerror/index.js";
import type { OwnerSource, RemapProgress, RemapReport } from "../operator/remap-owner.js";
import { isNamespacedOwner, ownerShapeProblem } from "../auth/owner-shape.js";
import { addOutputFlag, batchSize, batchSizeOption, Deadline, DEFAULT_SWEEP_TIMEOUT, failure, outputMode, parsePositiveSweepTimeout, SweepTimeoutError, flagRefusal } from "./common.js";
import { SWEEP_CHECK, withServingStore } from "./store.js";

/**
 * `engram migrate-remap-owner` and its deprecated alias `engram
 * migrate-set-owner`: move records from one owner to another in place, on
 * the store the server would serve. Previews unless --apply. Owners are
 * never repeated in a message or the report.
 */

type RemapFlags = { from?: string; fromMissing?: boolean; fromAnon?: boolean; to?: string; apply?: boolean; output?: OutputMode; timeout?: string; batchSize?: bigint };
type SetOwnerFlags = { owner?: string; apply?: boolean; output?: OutputMode; timeout?: string; batchSize?: bigint };

/** Owner names are bearer-token owners or OIDC claims; anything longer is a typo, not an owner. */
export const MAX_OWNER_BYTES = 1024;
const FROM_FLAGS = ["from", "from-missing", "from-anon"];

/** Exactly one source; every refusal here happens before the store is opened. */
export function ownerSource(o: RemapFlags): OwnerSource {
  const given = [o.from !== undefined, o.fromMissing === true, o.fromAnon === true].filter(Boolean).length;
  if (given > 1) throw usageError(argError(FROM_FLAGS, "mutually_exclusive", "give exactly one of --from <owner>, --from-missing and --from-anon").message);
  // An empty --from names no owner (an unset shell variable): the anonymous bucket is asked for by --from-anon only.
  if (given === 0 || o.from === "") {
    throw usageError(argError(FROM_FLAGS, "required", "one of --from <owner>, --from-missing (records with no owner) or --from-anon (the anonymous bucket) is required").message);
  }
  if (o.fromMissing) return { kind: "missing" };
  if (o.fromAnon) return { kind: "anonymous" };
  checkOwner("--from", o.from!);
  return { kind: "owner", owner: o.from! };
}

function checkOwner(flag: string, owner: string): void {
  if (Buffer.byteLength(owner, "utf8") > MAX_OWNER_BYTES) throw flagRefusal(flag, "too_long", `${flag} must be at most ${MAX_OWNER_BYTES} bytes`);
  if (/[\u0000-\u001f\u007f]/.test(owner)) throw flagRefusal(flag, "format", `${flag} must not contain control characters`);
}

/**
 * The target owner, required and different from the source ("" is the
 * anonymous bucket); `flag` names it as the verb spells it. Whitespace is
 * refused outside the OIDC lanes' `<len>:<claim>:` form, whose claim values
 * are the identity provider's: no static token or stdio session can act as
 * such an owner, so records moved there would be out of every caller's reach.
 */
export function targetOwner(to: string | undefined, from: OwnerSource, flag: "--to" | "--owner" = "--to"): string {
  if (to === undefined) throw usageError(argError("to", "required", "--to <owner> is required: the owner the records move to").message);
  checkOwner(flag, to);
  if (ownerShapeProblem(to) === "whitespace" && !isNamespacedOwner(to)) throw flagRefusal(flag, "format", `${flag} must not contain whitespace: no token or session could act as that owner`);
  if ((from.kind === "owner" && from.owner === to) || (from.kind === "anonymous" && to === "")) {
    throw flagRefusal([from.kind === "anonymous" ? "--from-anon" : "--from", flag], "not_applicable", `${flag} must differ from the owner the records move from; nothing would change`);
  }
  return to;
}

export function remapText(r: RemapReport, toFlag: "--to" | "--owner" = "--to"): string {
  const what = r.from === "owner" ? "of the --from owner" : r.from === "missing" ? "with no owner" : "in the anonymous bucket";
  const head = r.dry_run
    ? r.would_remap === 0
      ? `preview: no record ${what}; nothing to move`
      : `preview: ${r.would_remap} record(s) ${what} would move to the ${toFlag} owner; nothing was written (run with --apply)`
    : `moved ${r.remapped} record(s) ${what} to the ${toFlag} owner in ${r.passes} pass(es)` + (r.failed > 0 ? `; ${r.failed} write(s) failed, run again to retry them` : "");
  const rows: [string, string | number | boolean][] = [
    ["from", r.from],
    ["dry_run", r.dry_run],
    ["would_remap", r.would_remap],
    ["remapped", r.remapped],
    ["failed", r.failed],
    ["passes", r.passes],
    ["backlog", r.backlog],
  ];
  return [head, "", table(["FIELD", "VALUE"], rows.map(([k, v]) => [k, String(v)]))].join("\n");
}

async function runRemap(o: RemapFlags, from: OwnerSource, to: string, rerun: string, toFlag: "--to" | "--owner" = "--to"): Promise<void> {
  const output = outputMode(o.output);
  // Unlike the other sweeps, 0 is refused: moving owners is never left to run unbounded by accident.
  const timeoutMs = parsePositiveSweepTimeout(o.timeout);
  const batch = batchSize(o.batchSize);
  const apply = o.apply === true;
  const progress = progressFor(apply);
  const { remapOwner, RemapStalledError } = await import("../operator/remap-owner.js");
  const report = await withServingStore(async ({ store }) => {
    // The clock starts once the store is open.
    const reporter = new ProgressReporter(progress, "remapped");
    const deadline = new Deadline(timeoutMs, "remapped");
    let last: RemapProgress | undefined;
    try {
      return await remapOwner(store, {
        from,
        to,
        apply,
        batch,
        now: () => new Date(),
        onProgress: (p) => {
          last = p;
          reporter.update(p.done, p.backlog);
          // As in the other sweeps, a budget that runs out with nothing left stopped nothing: the run reports as done.
          if (p.left > 0 && deadline.expired()) throw new SweepTimeoutError("remapped");
        },
      });
    } catch (err) {
      if (err instanceof RemapStalledError) throw failure(EXIT.unclassified, err.message);
      if (err instanceof SweepTimeoutError) {
        throw failure(
          EXIT.timeout,
          `--timeout ran out after ${last?.pass ?? 0} pass(es); the ${last?.done ?? 0} record(s) moved stay moved; run \`${rerun}\` again to continue`,
        );
      }
      throw err;
    } finally {
      reporter.finish();
    }
  }, process.env, SWEEP_CHECK);
  writeDocument(output, report, () => remapText(report, toFlag));
}

const APPLY_RULE = RULES["destructive-requires-apply"].sentence;

function addCommon(cmd: Command): Command {
  cmd.option("--apply", "write: move the records instead of previewing");
  addOutputFlag(cmd);
  cmd.addOption(new Option("--timeout <duration>", "wall-clock budget for the write loop, e.g. 30s, 5m, 1h; must be above 0").default(DEFAULT_SWEEP_TIMEOUT));
  cmd.addOption(batchSizeOption(new Option("--batch-size <n>", "records read and moved per pass of the loop, each by its own conditional write")));
  return cmd;
}

export function registerOperatorRemapOwner(program: Command): void {
  const remap = program
    .command("migrate-remap-owner")
    .summary("move records from one owner to another (preview unless --apply)")
    .description(
      "Move every record of one owner (--from), of no owner at all (--from-missing: records written before owners existed, which no " +
        "owner-scoped read sees) or of the anonymous bucket (--from-anon: owner \"\", what a server without tokens writes) to the owner --to, " +
        "on the store the server would serve (ENGRAM_DATA_DIR, or the Qdrant collection when ENGRAM_QDRANT_URL is set). Records keep their ids; " +
        `only the owner changes, one conditional write each, so a run stopped at any point is finished by running it again. Without --apply it only counts: ${APPLY_RULE}.`,
    )
    .option("--from <owner>", "move the records of this owner")
    .option("--from-missing", "move the records that have no owner key (pre-isolation)")
    .option("--from-anon", "move the records of the anonymous bucket (owner \"\")")
    .option("--to <owner>", "the owner the records move to (required; \"\" is the anonymous bucket)");
  addCommon(remap);
  remap.action(async (o: RemapFlags) => {
    const from = ownerSource(o);
    const to = targetOwner(o.to, from);
    await runRemap(o, from, to, "engram migrate-remap-owner … --apply");
  });

  const setOwner = program
    .command("migrate-set-owner")
    .summary("deprecated: migrate-remap-owner --from-missing --to <owner>")
    .description(
      "Deprecated alias of `engram migrate-remap-owner --from-missing --to <owner>`: give every record that has no owner key the owner --owner. " +
        `Same report, exit statuses and progress lines. Without --apply it only counts: ${APPLY_RULE}.`,
    )
    .option("--owner <owner>", "the owner records with no owner get (required)");
  addCommon(setOwner);
  setOwner.action(async (o: SetOwnerFlags) => {
    process.stderr.write("engram: migrate-set-owner is deprecated; use engram migrate-remap-owner --from-missing --to <owner>\n");
    const from: OwnerSource = { kind: "missing" };
    if (o.owner === undefined) throw usageError(argError("owner", "required", "--owner <owner> is required: the owner records with no owner get").message);
    const to = targetOwner(o.owner, from, "--owner");
    await runRemap(o, from, to, "engram migrate-set-owner --owner … --apply", "--owner");
  });
}
