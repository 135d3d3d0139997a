import { accessSync, closeSync, constants, createReadStream, openSync, readSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { type OutputMode, progressMode, ProgressReporter, table, usageError, writeDocument } from "../cli-kit/index.js";
import { argError, EXIT } from "../argerror/index.js";
import type { BackupReport, ImportReport } from "../operator/index.js";
import { addBatchSizeFlag, addOutputFlag, batchSize, failure, outputMode } from "./common.js";
import { qdrantConnectionOf, qdrantFailure, requireQdrantCollection, runFault, withServingStore, withOperatorStore } from "./store.js";

/**
 * Portable data: `engram export` (JSON Lines on stdout), `engram import
 * <file>` and `engram backup <file>`. Operator verbs: they open the store
 * `engram serve` would serve (the file under ENGRAM_DATA_DIR, or the Qdrant
 * collection with ENGRAM_QDRANT_URL set) and see every owner's records.
 */

/**
 * Backup copies the SQLite file; there is none behind a Qdrant deployment.
 * Copying the embedded default instead would report a backup of the wrong
 * store, so the verb refuses before it opens anything and names the tool
 * that does back up a collection.
 */
export const BACKUP_ON_QDRANT =
  "engram backup copies the embedded store's SQLite file and does not support the Qdrant store that ENGRAM_QDRANT_URL configures; " +
  "back up the collection with Qdrant's snapshot API (POST /collections/<collection>/snapshots on every node), see docs/qdrant.md";

export const OWNER_ALL_OWNERS_EXCLUSIVE = "owner and all-owners cannot be combined; all-owners already covers every owner";
export const OWNER_REQUIRED = "export requires an explicit --owner or --all-owners: name one owner (\"\" is the anonymous owner), or opt into every owner";
export const EXPORT_SCOPE_EMPTY = "--scope must name one scope; leave it out to export every scope";

type ExportFlags = { owner?: string; allOwners?: boolean; scope?: string; vectors?: boolean };

/** Resolves once stdout has taken the chunk, so a slow reader holds the export back instead of filling memory. */
function writeStdout(chunk: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = process.stdout.write(chunk, (err) => (err ? reject(err) : undefined));
    if (ok) resolve();
    else process.stdout.once("drain", resolve);
  });
}

/** Whose records, exactly one way, and a scope only when it names one: in the envelopes the sweeps give the same mistakes. */
function checkExportFlags(o: ExportFlags): void {
  if (o.owner !== undefined && o.allOwners) throw usageError(argError(["owner", "all-owners"], "mutually_exclusive", OWNER_ALL_OWNERS_EXCLUSIVE).message);
  if (o.owner === undefined && !o.allOwners) throw usageError(argError(["owner", "all-owners"], "conditional_required", OWNER_REQUIRED).message);
  // An empty scope names none: the core reads it as missing, and as a filter it would match nothing.
  if (o.scope !== undefined && o.scope.trim() === "") throw usageError(argError("scope", "required", EXPORT_SCOPE_EMPTY).message);
}

async function runExport(o: ExportFlags): Promise<void> {
  checkExportFlags(o);
  const progress = progressMode();
  const reporter = () => new ProgressReporter(progress, "exported");
  const opts = (r: ProgressReporter) => ({
    ...(o.owner !== undefined ? { owner: o.owner } : {}),
    allOwners: o.allOwners === true,
    ...(o.scope !== undefined ? { scope: o.scope } : {}),
    vectors: o.vectors !== false,
    write: writeStdout,
    onProgress: (done: number, total: number) => r.update(done, total),
  });
  if (process.env.ENGRAM_QDRANT_URL) {
    const { exportQdrant } = await import("../operator/export-qdrant.js");
    await requireQdrantCollection(process.env, "read");
    const r = reporter();
    try {
      await exportQdrant(qdrantConnectionOf(process.env), opts(r));
    } catch (err) {
      throw qdrantFailure(err);
    } finally {
      r.finish();
    }
    return;
  }
  const { exportRecords } = await import("../operator/export-records.js");
  await withOperatorStore(async ({ store }) => {
    const r = reporter();
    try {
      await exportRecords(store, opts(r));
    } finally {
      r.finish();
    }
  });
}

export function importText(r: ImportReport): string {
  const head = `imported ${r.imported} record(s) in ${r.batches} batch(es); ${r.reembedded} re-embedded with ${r.to_embedder}`;
  const rows: [string, string][] = [
    ["imported", String(r.imported)],
    ["reembedded", String(r.reembedded)],
    ["batches", String(r.batches)],
    ["from_embedder", r.from_embedder === "" ? "(unknown)" : r.from_embedder],
    ["to_embedder", r.to_embedder],
  ];
  return [head, "", table(["FIELD", "VALUE"], rows)].join("\n");
}

function inputLines(file: string): AsyncIterable<string> {
  const input = file === "-" ? process.stdin : createReadStream(file, { encoding: "utf8" });
  return createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
}

/**
 * Lines in a file, for a progress total; stdin cannot be read twice, so its
 * total grows as it goes. Counted a chunk at a time: an export of a million
 * records is gigabytes, past the longest string Node can hold.
 */
function countLines(file: string): number {
  const fd = openSync(file, "r");
  const chunk = Buffer.allocUnsafe(1 << 20);
  let newlines = 0;
  let last = 0x0a;
  try {
    for (let got = readSync(fd, chunk); got > 0; got = readSync(fd, chunk)) {
      for (let at = chunk.indexOf(0x0a); at !== -1 && at < got; at = chunk.indexOf(0x0a, at + 1)) newlines++;
      last = chunk[got - 1]!;
    }
  } finally {
    closeSync(fd);
  }
  // A last line without its newline is a line too; the header is not a record.
  return Math.max(0, newlines + (last === 0x0a ? 0 : 1) - 1);
}

/**
 * Why an import path cannot be used, or undefined when it can; never a word
 * of the path itself, which may hold anything. A path that exists but is
 * not a regular file is named for what it is: a directory by the errno a
 * read of it gives, anything else (a pipe, a socket, a device) by kind, since
 * its lines are counted before they are read and a count would drain a pipe.
 */
function unreadableImport(file: string): string | undefined {
  try {
    accessSync(file, constants.R_OK);
    const st = statSync(file);
    if (st.isDirectory()) return "cannot read the import file: it is a directory, not a regular file (EISDIR)";
    if (!st.isFile()) return "cannot read the import file: it is not a regular file; pass a pipe or a device on standard input with -";
    return undefined;
  } catch (err) {
    return `cannot read the import file (${(err as NodeJS.ErrnoException).code ?? "unreadable"})`;
  }
}

type ImportModule = typeof import("../operator/index.js");

/**
 * What a stopped import tells the operator, in the exit table's terms: a
 * line's own content is that line's fault (2); a store locked, an embedder or
 * a store out of reach (5), or a store timeout (6) is no line's, and says so
 * in the words the other verbs use; with what was and was not written.
 */
function importFailure(err: unknown, m: ImportModule): unknown {
  if (err instanceof m.ImportRefused) return failure(EXIT.usage, err.message);
  if (!(err instanceof m.ImportStopped)) return err;
  const before = `(${err.report.imported} record(s) imported before it)`;
  if (err.cause instanceof m.LineError) return failure(EXIT.usage, `${err.cause.message}; nothing from its batch on was written ${before}`);
  // Qdrant has no transactions: the batch that failed may be partly written.
  const written = process.env.ENGRAM_QDRANT_URL
    ? `nothing after the batch from line ${err.line} was written, and that batch may be partly written: importing the file again completes it`
    : `nothing from line ${err.line} on was written`;
  const fault = runFault(err.cause);
  if (fault !== undefined) return failure(fault.exit, `${fault.text}; ${written} ${before}`);
  // A read of the file that failed names its errno, never the path its message holds.
  const errno = (err.cause as NodeJS.ErrnoException | undefined)?.syscall !== undefined ? (err.cause as NodeJS.ErrnoException).code : undefined;
  const why = errno !== undefined ? `cannot read the import file (${errno})` : err.message;
  return failure(EXIT.unclassified, `import failed: ${why}; ${written} ${before}`);
}

async function runImport(file: string, o: { output?: OutputMode; batchSize?: bigint }): Promise<void> {
  const output = outputMode(o.output);
  const batch = batchSize(o.batchSize);
  if (file !== "-") {
    const why = unreadableImport(file);
    if (why !== undefined) throw usageError(why);
  }
  const progress = progressMode();
  const total = file === "-" || progress === "off" ? 0 : countLines(file);
  const m = await import("../operator/index.js");
  // A file refused in its header or first batch opens nothing, so it creates no store either.
  const lines = await m.checkOpening(inputLines(file), batch).catch((err: unknown) => {
    throw importFailure(err, m);
  });
  // An import is how a store is first filled (a move to a new machine, or to Qdrant), so it alone may create one.
  const report = await withServingStore(async ({ store, embedder }) => {
    const reporter = new ProgressReporter(progress, "imported");
    try {
      return await m.importRecords(store, embedder, lines, {
        batch,
        onProgress: (done) => reporter.update(done, total),
      });
    } catch (err) {
      throw importFailure(err, m);
    } finally {
      reporter.finish();
      await (embedder as { close?: () => Promise<void> | void }).close?.();
    }
  }, process.env, { mayCreate: true });
  writeDocument(output, report, () => importText(report));
}

export function backupText(r: BackupReport): string {
  return [
    `backed up ${r.records} record(s) to ${r.file} (${r.bytes} bytes); restore by placing it as engram.db in an empty ENGRAM_DATA_DIR`,
    "the vector index is not in the backup: it is rebuilt from the records at the first start",
  ].join("\n");
}

async function runBackup(file: string, o: { output?: OutputMode }): Promise<void> {
  if (process.env.ENGRAM_QDRANT_URL) throw usageError(BACKUP_ON_QDRANT);
  const output = outputMode(o.output);
  const progress = progressMode();
  const { backupStore, BackupTargetRefused } = await import("../operator/backup.js");
  const report = await withOperatorStore(async ({ store }) => {
    const reporter = new ProgressReporter(progress, "copied pages");
    try {
      return await backupStore(store, file, (done, total) => reporter.update(done, total));
    } catch (err) {
      if (err instanceof BackupTargetRefused) throw failure(EXIT.usage, err.message);
      throw err;
    } finally {
      reporter.finish();
    }
  });
  writeDocument(output, report, () => backupText(report));
}

export function registerOperatorData(program: Command): void {
  program
    .command("export")
    .summary("write records as JSON Lines on stdout")
    .description(
      "Write the records of the store under ENGRAM_DATA_DIR (or of the Qdrant collection, with ENGRAM_QDRANT_URL set) to stdout as " +
        "JSON Lines: a header naming the embedder, then one line per record with every stored field (lifecycle included) and its vector. " +
        "On the embedded store it reads one consistent snapshot, also while a server runs.",
    )
    .option("--owner <owner>", 'export this owner\'s records ("" is the anonymous owner)')
    .option("--all-owners", "export every owner's records")
    .option("--scope <scope>", "only records in this scope")
    .option("--no-vectors", "leave vectors out; an import then re-embeds every record")
    .action(async (o: ExportFlags) => runExport(o));

  const imp = program
    .command("import")
    .summary("read records back from an export (- for stdin)")
    .description(
      "Read an `engram export` file into the store under ENGRAM_DATA_DIR (or the Qdrant collection, with ENGRAM_QDRANT_URL set; " +
        "the one operator verb that creates the store when there is none), keeping ids, short ids, timestamps, supersede links and " +
        "archive state. Batches are transactions; importing a file again changes nothing. Records are re-embedded when the export's " +
        "embedder is not the configured one.",
    )
    .argument("<file>", "the export file, or - for stdin");
  addOutputFlag(imp);
  addBatchSizeFlag(imp);
  imp.action(async (file: string, o: { output?: OutputMode; batchSize?: bigint }) => runImport(file, o));

  const backup = program
    .command("backup")
    .summary("copy the store's database consistently, also while a server runs")
    .description(
      "Copy the database under ENGRAM_DATA_DIR to <file> with SQLite's online backup, while a server may keep writing, and check that " +
        "the copy opens. The vector index is rebuilt from the records, so the file is all a restore needs. Never overwrites a file. " +
        "Refused with ENGRAM_QDRANT_URL set: back a collection up with Qdrant's snapshot API.",
    )
    .argument("<file>", "where to write the copy (must not exist)");
  addOutputFlag(backup);
  backup.action(async (file: string, o: { output?: OutputMode }) => runBackup(file, o));
}
