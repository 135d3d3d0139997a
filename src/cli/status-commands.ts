import { create } from "@bufbuild/protobuf";
import type { Command } from "commander";
import { table } from "../cli-kit/index.js";
import { MigrateStatusRequestSchema, MigrateStatusResponseSchema } from "../gen/engram/v1/engram_pb.js";
import { addClientFlags, resolveClient, type ClientFlagValues } from "./client-flags.js";
import { emit } from "./output.js";
import { callEngram } from "./rpc.js";

/** Status: the schema-version histogram of the server's store. Read-only. */
export function registerStatusCommands(program: Command): void {
  const status = program
    .command("migration-status")
    .summary("show how many records sit at each schema version")
    .description("Show the schema-version histogram of the whole store and how many records a migration would touch (MigrateStatus).");
  addClientFlags(status).action(async (o: ClientFlagValues, cmd: Command) => {
    const settings = resolveClient(o, cmd);
    const req = create(MigrateStatusRequestSchema, {});
    const res = await callEngram(settings, (c, opts) => c.migrateStatus(req, opts));
    emit(settings.output, MigrateStatusResponseSchema, res, () =>
      [
        table(
          ["FIELD", "VALUE"],
          [
            ["current_version", String(res.currentVersion)],
            ["total", res.total.toString()],
            ["pending", res.pending.toString()],
            ["absent", res.absent.toString()],
            ["future_total", res.futureTotal.toString()],
          ],
        ),
        "",
        table(
          ["VERSION", "COUNT"],
          [
            ...res.buckets.map((b) => [String(b.version), b.count.toString()]),
            ...res.future.map((b) => [`${b.version} (future)`, b.count.toString()]),
          ],
        ),
      ].join("\n"),
    );
  });
}
