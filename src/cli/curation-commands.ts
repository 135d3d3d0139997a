import { create } from "@bufbuild/protobuf";
import type { Command } from "commander";
import { table } from "../cli-kit/index.js";
import {
  ArchiveMemoryRequestSchema,
  ArchiveMemoryResponseSchema,
  ArchiveOutcome,
  RestoreMemoryRequestSchema,
  RestoreMemoryResponseSchema,
  type ArchiveResult,
} from "../gen/engram/v1/engram_pb.js";
import { addClientFlags, resolveClient, type ClientFlagValues } from "./client-flags.js";
import { emit } from "./output.js";
import { callEngram } from "./rpc.js";

/** Curation: archive and restore, reversible state flips answered one row per id. */

const OUTCOME_WORD: Record<ArchiveOutcome, string> = {
  [ArchiveOutcome.UNSPECIFIED]: "unspecified",
  [ArchiveOutcome.ARCHIVED]: "archived",
  [ArchiveOutcome.ALREADY_ARCHIVED]: "already_archived",
  [ArchiveOutcome.RESTORED]: "restored",
  [ArchiveOutcome.NOT_ARCHIVED]: "not_archived",
  [ArchiveOutcome.NOT_FOUND]: "not_found",
};

function outcomeTable(results: readonly ArchiveResult[]): string {
  return table(
    ["REQUESTED", "ID", "OUTCOME"],
    results.map((r) => [r.requested, r.id === "" ? "-" : r.id, OUTCOME_WORD[r.outcome]]),
  );
}

export function registerCurationCommands(program: Command): void {
  const archive = program
    .command("archive")
    .summary("hide records from recall, reversibly")
    .description("Archive records: hidden from search and list, still fetchable by id, undone by restore (ArchiveMemory).")
    .argument("<ids...>", "UUIDs or short ids");
  addClientFlags(archive).action(async (ids: string[], o: ClientFlagValues, cmd: Command) => {
    const settings = resolveClient(o, cmd);
    const req = create(ArchiveMemoryRequestSchema, { ids });
    const res = await callEngram(settings, (c, opts) => c.archiveMemory(req, opts));
    emit(settings.output, ArchiveMemoryResponseSchema, res, () => outcomeTable(res.results));
  });

  const restore = program
    .command("restore")
    .summary("return archived records to recall")
    .description("Restore archived records (RestoreMemory).")
    .argument("<ids...>", "UUIDs or short ids");
  addClientFlags(restore).action(async (ids: string[], o: ClientFlagValues, cmd: Command) => {
    const settings = resolveClient(o, cmd);
    const req = create(RestoreMemoryRequestSchema, { ids });
    const res = await callEngram(settings, (c, opts) => c.restoreMemory(req, opts));
    emit(settings.output, RestoreMemoryResponseSchema, res, () => outcomeTable(res.results));
  });
}
