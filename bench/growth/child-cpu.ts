/**
 * CPU seconds (user + system) of this process's finished children, from
 * /proc/self/stat: the CLI verbs the curve times run as child processes,
 * and on a shared machine their CPU time, beside the wall time, tells how
 * much of a slow figure was other people's work.
 */
import { readFileSync } from "node:fs";

const TICKS_PER_S = 100;

export function childCpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // Fields after the command name, which sits in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // cutime and cstime are fields 16 and 17 of the whole line, 14 and 15 after the name.
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_S;
}
