/**
 * `npm run bench`: every goal row of the engine, each measured next to its
 * reference in the same run (these machines are noisy: read the ratios).
 *
 *   ENGRAM_BENCH_RECORDS  records for the store-sized rows (default 100000)
 *   ENGRAM_BENCH_ONLY     comma-separated section names to run (default: all)
 *   ENGRAM_BENCH_JSON     also write the rows to this file, as JSON (bench/sqlite-drivers.ts reads it)
 *   --growth, or ENGRAM_BENCH_GROWTH=1: the growth curve instead
 *                         (bench/growth/curve.ts; sizes from ENGRAM_BENCH_GROWTH_SIZES)
 *
 * The closing Markdown table is what docs/performance.md keeps, with the
 * machine line printed above it.
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import type { BenchRow, BenchSection } from "./bench-row.js";
import { bulkIngestion } from "./rows/bulk-ingestion.js";
import { cliStart } from "./rows/cli-start.js";
import { growthCurve } from "./growth/curve.js";
import { embedCost } from "./rows/embed-cost.js";
import { healthzUnderLoad } from "./rows/healthz-under-load.js";
import { importRate } from "./rows/import-rate.js";
import { lifecycleSweeps } from "./rows/lifecycle-sweeps.js";
import { operatorSweeps } from "./rows/operator-sweeps.js";
import { readCost } from "./rows/read-cost.js";
import { searchAndStart } from "./rows/search-and-start.js";
import { snapshotCheck } from "./rows/snapshot-check.js";
import { tracingCost } from "./rows/tracing-cost.js";

const SECTIONS: Record<string, BenchSection> = {
  "search-and-start": searchAndStart,
  "snapshot-check": snapshotCheck,
  "healthz-under-load": healthzUnderLoad,
  "embed-cost": embedCost,
  "cli-start": cliStart,
  "read-cost": readCost,
  "operator-sweeps": operatorSweeps,
  "bulk-ingestion": bulkIngestion,
  "lifecycle-sweeps": lifecycleSweeps,
  "import-rate": importRate,
  "tracing-cost": tracingCost,
};

function selected(): [string, BenchSection][] {
  // The curve runs alone: at a million records it takes most of an hour.
  if (process.argv.includes("--growth") || process.env.ENGRAM_BENCH_GROWTH === "1") return [["growth", growthCurve]];
  const only = (process.env.ENGRAM_BENCH_ONLY ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
  const unknown = only.filter((name) => !(name in SECTIONS));
  if (unknown.length > 0) {
    throw new Error(`ENGRAM_BENCH_ONLY names ${unknown.length} unknown section(s); known: ${Object.keys(SECTIONS).join(", ")}`);
  }
  return Object.entries(SECTIONS).filter(([name]) => only.length === 0 || only.includes(name));
}

function machineLine(): string {
  const cpu = cpus();
  const load = loadavg().map((l) => l.toFixed(2)).join(" ");
  return `${cpu.length} × ${cpu[0]?.model ?? "unknown cpu"}, Node ${process.version}, load average ${load}`;
}

function table(rows: readonly BenchRow[]): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const lines = ["| Measure | Value | Reference (same run) | Ratio | Goal | Met |", "|---|---|---|---|---|---|"];
  for (const r of rows) {
    const ratio = r.ratio === undefined ? "" : `${r.ratio.toFixed(2)}×`;
    lines.push(`| ${cell(r.measure)} | ${cell(r.value)} | ${cell(r.reference)} | ${ratio} | ${cell(r.goal)} | ${r.met ? "yes" : "no"} |`);
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const rows: BenchRow[] = [];
  const started = new Date().toISOString();
  console.log(`engram bench, ${started}\nmachine: ${machineLine()}\n`);
  for (const [name, section] of selected()) {
    console.log(`== ${name}`);
    const got = await section();
    for (const r of got) console.log(`  ${r.measure}: ${r.value}${r.reference ? ` (reference ${r.reference})` : ""} goal ${r.goal}: ${r.met ? "met" : "NOT met"}`);
    rows.push(...got);
  }
  console.log(`\nmachine at the end: ${machineLine()}\n`);
  console.log(table(rows));
  if (process.env.ENGRAM_BENCH_JSON) writeFileSync(process.env.ENGRAM_BENCH_JSON, JSON.stringify(rows));
}

await main();
