import type { Command } from "commander";
import { type OutputMode, writeDocument } from "../cli-kit/index.js";
import { RULES } from "../argerror/index.js";
import { addOutputFlag, flagRefusal, outputMode } from "./common.js";
import { withServingStore } from "./store.js";

/**
 * `engram end-sessions --owner <owner>`: an operator's revocation of a user
 * in the console. It advances the owner's console session generation in the
 * store (src/auth/session-ledger.ts), so every console session of that owner
 * is refused from the next request on, by every server on that store, as a
 * sign-out would. Bearer tokens are the identity provider's or the token
 * file's to revoke; this touches no record.
 */

type EndSessionsFlags = { owner?: string; apply?: boolean; output?: OutputMode };
export type EndSessionsReport = { dry_run: boolean; generation: number };

export function endSessionsText(r: EndSessionsReport): string {
  return r.dry_run
    ? "preview: every console session of the owner would end; nothing was written (run with --apply)"
    : `ended every console session of the owner (session generation ${r.generation}); each must sign in again`;
}

async function runEndSessions(o: EndSessionsFlags): Promise<void> {
  if (o.owner === undefined || o.owner === "") throw flagRefusal("--owner", "required", "--owner <owner> is required: the owner whose console sessions end");
  const owner = o.owner;
  const output = outputMode(o.output);
  const apply = o.apply === true;
  const { storeSessionLedger } = await import("../auth/index.js");
  const report = await withServingStore(async ({ store }) => {
    const ledger = storeSessionLedger(store);
    if (apply) await ledger.advance(owner);
    return { dry_run: !apply, generation: await ledger.generation(owner) };
  });
  writeDocument(output, report, () => endSessionsText(report));
}

export function registerOperatorSessions(program: Command): void {
  const cmd = program
    .command("end-sessions")
    .summary("end every console session of one owner, on every server on the store (preview unless --apply)")
    .description(
      "End every console sign-in session of --owner, as signing out does: the owner's session generation in the store under ENGRAM_DATA_DIR " +
        "(or the Qdrant collection when ENGRAM_QDRANT_URL is set) moves on, so each server on that store refuses the old session cookies from the next request. " +
        `Records and bearer tokens are untouched. Without --apply it only says what would end: ${RULES["destructive-requires-apply"].sentence}.`,
    )
    .option("--owner <owner>", "the owner whose console sessions end (as the identity provider's claims name it)")
    .option("--apply", "write: end the sessions instead of previewing");
  addOutputFlag(cmd);
  cmd.action(async (o: EndSessionsFlags) => runEndSessions(o));
}
