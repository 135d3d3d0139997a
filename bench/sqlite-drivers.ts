/**
 * `npm run bench:sqlite`: the bench sections the SQLite driver shows in,
 * once per driver on this runtime, side by side in one run: each section
 * runs in a child with ENGRAM_SQLITE_DRIVER set, better-sqlite3 and then
 * node:sqlite, section by section so both meet the same machine. The table
 * gives each row's figure under both and node:sqlite's over better-sqlite3's:
 * of the row's ratio to its same-run reference where it has one, else of the
 * figure itself (for a rate, above 1 is faster; for a time, slower).
 *
 *   ENGRAM_BENCH_RECORDS   records for the store-sized rows (default 100000)
 *   ENGRAM_DRIVER_SECTIONS comma-separated sections (default below)
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchRow } from "./bench-row.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DRIVERS = ["better-sqlite3", "node:sqlite"] as const;
const SECTIONS = (process.env.ENGRAM_DRIVER_SECTIONS ?? "read-cost,search-and-start,import-rate,operator-sweeps,lifecycle-sweeps").split(",").map((s) => s.trim());

/** The leading number of a figure ("0.41 ms p50", "embed + 3.20 ms", "12,921 rows/s"). */
function number(value: string): number | undefined {
  const m = /(\d[\d,]*(?:\.\d+)?)/.exec(value.replace(/^embed \+ /, ""));
  return m ? Number(m[1]!.replace(/,/g, "")) : undefined;
}

function runSection(section: string, driver: string): BenchRow[] {
  const dir = mkdtempSync(join(tmpdir(), "engram-bench-driver-"));
  const out = join(dir, "rows.json");
  try {
    execFileSync(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), "bench/run.ts"], {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, ENGRAM_BENCH_ONLY: section, ENGRAM_SQLITE_DRIVER: driver, ENGRAM_BENCH_JSON: out },
    });
    return JSON.parse(readFileSync(out, "utf8")) as BenchRow[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const machine = () => `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`;
console.log(`engram SQLite driver bench, ${new Date().toISOString()}\nmachine: ${machine()}\n`);
const lines = ["| Section | Measure | better-sqlite3 | node:sqlite | node:sqlite / better-sqlite3 |", "|---|---|---|---|---|"];
for (const section of SECTIONS) {
  const got = Object.fromEntries(DRIVERS.map((d) => [d, runSection(section, d)])) as Record<(typeof DRIVERS)[number], BenchRow[]>;
  for (const [i, row] of got["better-sqlite3"].entries()) {
    const other = got["node:sqlite"][i];
    // A row judged against a same-run reference compares by that ratio, which the machine's noise mostly cancels out of.
    // A search row's ratio is to the model's embedding time, which no driver touches: compare its milliseconds.
    const byValue = row.value.startsWith("embed + ");
    const a = byValue ? number(row.value) : (row.ratio ?? number(row.value));
    const b = other ? (byValue ? number(other.value) : (other.ratio ?? number(other.value))) : undefined;
    const cell = (r: BenchRow | undefined) =>
      r ? `${r.value}${r.reference ? ` (ref. ${r.reference}${r.ratio !== undefined ? `; ${r.ratio.toFixed(2)}×` : ""})` : ""}` : "—";
    const ratio = a !== undefined && b !== undefined && a > 0 ? `${(b / a).toFixed(2)}×` : "";
    lines.push(`| ${section} | ${row.measure.replace(/\|/g, "\\|")} | ${cell(row).replace(/\|/g, "\\|")} | ${cell(other).replace(/\|/g, "\\|")} | ${ratio} |`);
  }
}
console.log(`\nmachine at the end: ${machine()}\n`);
console.log(lines.join("\n"));
