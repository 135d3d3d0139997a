/**
 * The CLI's verbs that call an operation are built from the operation's row
 * and the RPC's request: what a user relies on in that derivation.
 */
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { OPERATION_ROWS } from "../src/core/index.js";
import { registerOperationVerbs, type VerbTable } from "../src/cli/operation-verb.js";
import { buildProgram } from "../src/cli/program.js";
import { OPERATION_VERBS } from "../src/cli/verb-table.js";
import { EngramService } from "../src/gen/engram/v1/engram_pb.js";
import { EngramCommand } from "../src/cli/flag-errors.js";

const CLIENT_FLAGS = ["--server", "--token-file", "--output", "--timeout", "--insecure"];

const program = buildProgram("0.0.0");
const verbRows = OPERATION_ROWS.filter((r) => r.verb !== undefined);
const command = (verb: string): Command => program.commands.find((c) => c.name() === verb)!;

describe("a verb built from its operation's row", () => {
  it.each(verbRows.map((r) => [r.verb!, r.name] as const))("%s says in its help which RPC it calls", (verb, name) => {
    expect(command(verb).description()).toContain(`(${EngramService.method[name as keyof typeof EngramService.method].name})`);
  });

  it.each(verbRows.map((r) => [r.verb!, r.name] as const))("every flag of %s is a field of its request, a declared local flag, or a connection flag", (verb, name) => {
    const input = EngramService.method[name as keyof typeof EngramService.method].input;
    const names = new Set(input.fields.flatMap((f) => [`--${f.name.replace(/_/g, "-")}`]));
    const local = (OPERATION_VERBS[verb as keyof VerbTable].local ?? []).map(([flags]) => flags.split(" ")[0]);
    const stray = command(verb)
      .options.map((o) => o.long!)
      .filter((f) => !names.has(f) && !local.includes(f) && !CLIENT_FLAGS.includes(f) && f !== "--citation");
    expect(stray).toEqual([]);
  });

  it("refuses, at start, a flag for a field the request does not have", () => {
    const table = { ...OPERATION_VERBS, count: { ...OPERATION_VERBS.count, flags: { ...OPERATION_VERBS.count.flags, full: "rows" } } } as VerbTable;
    expect(() => registerOperationVerbs(new EngramCommand(), table)).toThrow(/CountMemoriesRequest has no field full/);
  });

  it("gives a flag the form of its field's type", () => {
    const flags = (verb: string) => Object.fromEntries(command(verb).options.map((o) => [o.long, o.flags]));
    expect(flags("list")).toMatchObject({
      "--limit": "--limit <uint>",
      "--cursor-mode": "--cursor-mode",
      "--tags": "--tags <list>",
      "--page-token": "--page-token <token>",
    });
    expect(flags("schedule")).toMatchObject({ "--not-before": "--not-before <rfc3339>", "--citation": "--citation <json>" });
  });
});
