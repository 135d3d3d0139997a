import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../src/cli/program.js";

/** Every command below `program`, as its path and itself. */
function commands(program: Command, path: string[] = []): [string, Command][] {
  return program.commands.flatMap((c): [string, Command][] => [[[...path, c.name()].join(" "), c], ...commands(c, [...path, c.name()])]);
}

describe("the CLI's help", () => {
  it("starts every sentence of every command's description with a capital", () => {
    const lowerAfterStop = commands(buildProgram())
      .filter(([, c]) => /\.\s+[a-z]/.test(c.description().replace(/\b(e\.g|i\.e|etc)\./g, "")))
      .map(([name]) => name);
    expect(lowerAfterStop).toEqual([]);
  });
});
