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

/** An outcome as the core says it: the enum value's name, lower-cased ("ALREADY_ARCHIVED" is already_archived). */
const outcomeWord = (o: ArchiveOutcome): string => ArchiveOutcome[o].toLowerCase();

function outcomeTable(results: readonly ArchiveResult[]): string {
  return table(
    ["REQUESTED", "ID", "OUTCOME"],
    results.map((r) => [r.requested, r.id === "" ? "-" : r.id, outcomeWord(r.outcome)]),
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
