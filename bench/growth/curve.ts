/**
 * `npm run bench -- --growth` (or ENGRAM_BENCH_GROWTH=1): how search, start,
 * memory, disk and the operator verbs grow from one store size to the next
 * (sizes.ts), all in one run over one data directory grown from size to size
 * (seed.ts). Per size: the store's disk use after a clean close, search
 * latency in-process with the embedding excluded (search-latency.ts), the
 * served figures (serve-probe.ts), and export, import, revert and migrate
 * with the plain SQLite reference (operator-rates.ts). Prints the curve
 * (curve-table.ts) and returns the goals for it as bench rows.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchRow, BenchSection } from "../bench-row.js";
import { withSweepBundle } from "../rows/sweep-bundle.js";
import { diskUsage, type DiskFigures } from "./disk-usage.js";
import { formatExponent, QUADRATIC_EXPONENT } from "./fit.js";
import { curveTable, quadraticSteps, type CurveLine } from "./curve-table.js";
import { operatorRates, type OperatorFigures, type Rate } from "./operator-rates.js";
import { GROWTH_SCOPES, growthVectors } from "./records.js";
import { growTo, type SeedTiming } from "./seed.js";
import { searchLatency, type SearchFigures } from "./search-latency.js";
import { probeServe, SEARCHES, type ServeFigures } from "./serve-probe.js";
import { growthSizes, sizeLabel } from "./sizes.js";

const START_GOAL_S = 3;
const SEARCH_GROWTH_GOAL = 2;
const SWEEP_GOAL = 2;

type AtSize = { n: number; seed: SeedTiming; disk: DiskFigures; search: SearchFigures; serve: ServeFigures; ops: OperatorFigures };

const MiB = 1024 * 1024;
const ms = (x: number) => `${x.toFixed(2)} ms`;
const s = (x: number) => `${x.toFixed(2)} s`;
const mib = (b: number) => `${Math.round(b / MiB).toLocaleString("en-US")} MiB`;
const perRecord = (b: number, n: number) => `${Math.round(b / n).toLocaleString("en-US")} B`;
const rate = (r: Rate) => `${Math.round(r.records / r.s).toLocaleString("en-US")}/s`;
const rateCpu = (r: Rate) => `${rate(r)} (${r.cpuS.toFixed(1)} s CPU in ${r.s.toFixed(1)} s)`;

function lines(at: readonly AtSize[]): CurveLine[] {
  const line = (measure: string, shown: (a: AtSize) => string, fitted: (a: AtSize) => number, judged = true): CurveLine => ({
    measure,
    shown: at.map(shown),
    fitted: at.map(fitted),
    judged,
  });
  return [
    line("search p50, one scope (a tenth), embedding excluded", (a) => ms(a.search.scope.p50), (a) => a.search.scope.p50),
    line("search p95, one scope", (a) => ms(a.search.scope.p95), (a) => a.search.scope.p95),
    line("search CPU p50, one scope", (a) => ms(a.search.scope.cpuP50), (a) => a.search.scope.cpuP50),
    line("search p50, cross-spine", (a) => ms(a.search.cross.p50), (a) => a.search.cross.p50),
    line("search p95, cross-spine", (a) => ms(a.search.cross.p95), (a) => a.search.cross.p95),
    line("search CPU p50, cross-spine", (a) => ms(a.search.cross.cpuP50), (a) => a.search.cross.cpuP50),
    line("start to /healthz 200", (a) => s(a.serve.healthzMs / 1000), (a) => a.serve.healthzMs),
    line("start to /readyz 200", (a) => s(a.serve.readyzMs / 1000), (a) => a.serve.readyzMs),
    line("server RSS once ready", (a) => mib(a.serve.rssStartB), (a) => a.serve.rssStartB),
    line(`server RSS after ${SEARCHES.toLocaleString("en-US")} searches`, (a) => mib(a.serve.rssSearchedB), (a) => a.serve.rssSearchedB),
    line("  per record", (a) => perRecord(a.serve.rssSearchedB, a.n), (a) => a.serve.rssSearchedB),
    line("server peak RSS", (a) => mib(a.serve.peakB), (a) => a.serve.peakB),
    line("disk per record, all", (a) => perRecord(a.disk.totalB, a.n), (a) => a.disk.totalB),
    line("  SQLite file", (a) => perRecord(a.disk.sqliteB, a.n), (a) => a.disk.sqliteB),
    line("  index snapshot", (a) => perRecord(a.disk.snapshotB, a.n), (a) => a.disk.snapshotB),
    line("export records/s (CLI, to a file)", (a) => rateCpu(a.ops.exportRate), (a) => a.ops.exportRate.s),
    line("  export bytes per record", (a) => perRecord(a.ops.exportBytes, a.n), (a) => a.ops.exportBytes),
    line("import records/s (CLI, same embedder)", (a) => rateCpu(a.ops.importRate), (a) => a.ops.importRate.s),
    line("migrate revert --to 1 --apply records/s", (a) => rateCpu(a.ops.revert), (a) => a.ops.revert.s),
    line("migrate --apply records/s (v1 -> current)", (a) => rateCpu(a.ops.migrate), (a) => a.ops.migrate.s),
    line("reference: plain SQLite payload rewrite", (a) => rateCpu(a.ops.plain), (a) => a.ops.plain.s),
    line("seed: direct writes (context)", (a) => s(a.seed.writeS), (a) => a.seed.writeS, false),
    line("seed: index catch-up and graph (context)", (a) => s(a.seed.indexS), (a) => a.seed.indexS, false),
  ];
}

function goals(at: readonly AtSize[], curve: readonly CurveLine[]): BenchRow[] {
  const sizes = at.map((a) => a.n);
  const rows: BenchRow[] = [];
  const last = at[at.length - 1]!;
  const prev = at[at.length - 2];
  if (prev) {
    for (const [what, of] of [["one scope", (a: AtSize) => a.search.scope.p50], ["cross-spine", (a: AtSize) => a.search.cross.p50]] as const) {
      const ratio = of(last) / of(prev);
      const cpu = (a: AtSize) => (what === "one scope" ? a.search.scope.cpuP50 : a.search.cross.cpuP50);
      rows.push({
        measure: `growth: search p50 at ${sizeLabel(last.n)} vs ${sizeLabel(prev.n)}, ${what}`,
        value: `${ms(of(last))} (CPU ${ms(cpu(last))})`,
        reference: `${sizeLabel(prev.n)} ${ms(of(prev))} (CPU ${ms(cpu(prev))}; CPU ratio ${(cpu(last) / cpu(prev)).toFixed(2)}x)`,
        ratio,
        goal: `<= ${SEARCH_GROWTH_GOAL}x`,
        met: ratio <= SEARCH_GROWTH_GOAL,
      });
    }
    const perLast = last.serve.rssSearchedB / last.n;
    const perPrev = prev.serve.rssSearchedB / prev.n;
    rows.push({
      measure: `growth: server RSS per record at ${sizeLabel(last.n)} vs ${sizeLabel(prev.n)}`,
      value: perRecord(last.serve.rssSearchedB, last.n),
      reference: `${sizeLabel(prev.n)} ${perRecord(prev.serve.rssSearchedB, prev.n)}`,
      ratio: perLast / perPrev,
      goal: "<= 1x",
      met: perLast <= perPrev,
    });
  }
  const slowest = Math.max(...at.map((a) => a.serve.healthzMs)) / 1000;
  rows.push({
    measure: "growth: start to /healthz 200 at every size",
    value: at.map((a) => `${sizeLabel(a.n)} ${s(a.serve.healthzMs / 1000)}`).join(", "),
    reference: "",
    goal: `<= ${START_GOAL_S} s`,
    met: slowest <= START_GOAL_S,
  });
  const quadratic = quadraticSteps(sizes, curve);
  rows.push({
    measure: `growth: no quadratic step (exponent >= ${QUADRATIC_EXPONENT})`,
    value: quadratic.length === 0 ? "none" : quadratic.join("; "),
    reference: "",
    goal: "none",
    met: quadratic.length === 0,
  });
  for (const a of at) {
    for (const [verb, r] of [["migrate revert --to 1 --apply", a.ops.revert], ["migrate --apply", a.ops.migrate]] as const) {
      const ratio = r.s / a.ops.plain.s;
      rows.push({
        measure: `growth: ${verb} at ${sizeLabel(a.n)}, time vs a plain SQLite rewrite of the same rows`,
        value: `${s(r.s)} (${rate(r)}; ${r.cpuS.toFixed(2)} s CPU)`,
        reference: `plain rewrite ${s(a.ops.plain.s)} (${rate(a.ops.plain)}; ${a.ops.plain.cpuS.toFixed(2)} s CPU)`,
        ratio,
        goal: `<= ${SWEEP_GOAL}x`,
        met: ratio <= SWEEP_GOAL,
      });
    }
  }
  return rows;
}

export const growthCurve: BenchSection = async () => {
  const sizes = growthSizes();
  const dir = mkdtempSync(join(tmpdir(), "engram-growth-"));
  const vectors = growthVectors();
  const at: AtSize[] = [];
  try {
    await withSweepBundle(async (sweep) => {
      let held = 0;
      for (const n of sizes) {
        const seed = await growTo(dir, held, n, vectors);
        held = n;
        const disk = diskUsage(dir);
        const search = await searchLatency(dir);
        const serve = await probeServe(dir, GROWTH_SCOPES);
        const ops = await operatorRates(dir, n, sweep);
        at.push({ n, seed, disk, search, serve, ops });
        console.log(
          `  ${sizeLabel(n)}: seeded in ${s(seed.writeS)} + index ${s(seed.indexS)}; search p50 ${ms(search.scope.p50)} / ${ms(search.cross.p50)}; ` +
            `/healthz ${s(serve.healthzMs / 1000)}, /readyz ${s(serve.readyzMs / 1000)}; RSS ${mib(serve.rssStartB)} -> ${mib(serve.rssSearchedB)}; ` +
            `disk ${perRecord(disk.totalB, n)}/record; export ${rate(ops.exportRate)}, import ${rate(ops.importRate)}, ` +
            `revert ${rate(ops.revert)}, migrate ${rate(ops.migrate)}, plain ${rate(ops.plain)}`,
        );
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const curve = lines(at);
  console.log(`\n${curveTable(sizes, curve)}\n`);
  console.log(`exponents: log(v2/v1) / log(n2/n1) of the fitted figure; 1.0 is linear, quadratic from ${formatExponent(QUADRATIC_EXPONENT)}`);
  return goals(at, curve);
};
