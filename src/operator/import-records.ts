import { embeddingText, identityKey, type Embedder } from "../embed/index.js";
import { checkEmbedderIdentity } from "../embed/identity-check.js";
import { type Store, META_EMBEDDER_IDENTITY, type ImportRow, toFloat32 } from "../store/index.js";
import { LineError, parseHeader, parseRecordLine, type ExportedRecord } from "./export-format.js";

const EMPTY_FILE = "the file is empty (no header)";

export type ImportReport = {
  /** Records written (new or replaced). */
  imported: number;
  /** Of those, records whose vectors were made again by the target's embedder. */
  reembedded: number;
  /** Committed batches. */
  batches: number;
  from_embedder: string;
  to_embedder: string;
};

/**
 * The import stopped. `cause` is why: a LineError when a line's own content
 * is at fault, else what the store or the embedder threw, as it threw it.
 * `line` is the first line not written, the start of the batch that failed;
 * `report` is what was committed before it.
 */
export class ImportStopped extends Error {
  override readonly name = "ImportStopped";
  constructor(
    readonly cause: unknown,
    readonly report: ImportReport,
    readonly line: number,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** The target store already serves vectors from another embedder; importing more would mix two spaces. */
export class ImportRefused extends Error {
  override readonly name = "ImportRefused";
}

/**
 * Reads an export back. Lines are taken `batch` at a time; a batch is
 * parsed in full, embedded when needed, and written as one transaction, so
 * a bad line or a failed write leaves the store as it was before that batch
 * while every earlier batch stays. Writing a record that is already there
 * replaces it with the exported payload, so importing a file twice is the
 * same as importing it once.
 *
 * Vectors are kept when the export names the target's embedder and carries
 * a vector of the target's size; otherwise the record is re-embedded and
 * stamped with the target's embedder.
 */
export async function importRecords(
  store: Pick<Store, "getMeta" | "setMeta" | "importBatch">,
  embedder: Embedder,
  lines: AsyncIterable<string>,
  opts: { batch: number; onProgress?: (done: number) => void },
): Promise<ImportReport> {
  const to = identityKey(embedder.identity);
  const bytes = embedder.identity.dim * 4;
  const report: ImportReport = { imported: 0, reembedded: 0, batches: 0, from_embedder: "", to_embedder: to };
  let lineNo = 0;
  let header: ReturnType<typeof parseHeader> | undefined;
  let pending: ExportedRecord[] = [];
  let firstLineOfBatch = 2;

  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const keep = (r: ExportedRecord) => header!.embedder === to && r.vector !== undefined && r.vector.byteLength === bytes;
    const fresh = pending.filter((r) => !keep(r));
    const vectors = fresh.length > 0 ? await embedder.embedDocuments(fresh.map((r) => embeddingText(r.record.content, r.record.tags))) : [];
    const made = new Map(fresh.map((r, i) => [r, vectors[i]!]));
    const rows: ImportRow[] = pending.map((r) => {
      const v = made.get(r);
      return v !== undefined
        ? { record: { ...r.record, embedder_identity: to }, vector: v, version: r.record.schema_version ?? null }
        : { record: r.record, vector: toFloat32(r.vector!), version: r.record.schema_version ?? null };
    });
    if (report.batches === 0) claimIdentity(await store.getMeta(META_EMBEDDER_IDENTITY), embedder);
    await store.importBatch(rows);
    if (report.batches === 0 && (await store.getMeta(META_EMBEDDER_IDENTITY)) === undefined) await store.setMeta(META_EMBEDDER_IDENTITY, to);
    report.batches++;
    report.imported += rows.length;
    report.reembedded += fresh.length;
    pending = [];
    opts.onProgress?.(report.imported);
  };

  try {
    for await (const text of lines) {
      lineNo++;
      if (lineNo === 1) {
        header = parseHeader(text);
        report.from_embedder = header.embedder;
        claimIdentity(await store.getMeta(META_EMBEDDER_IDENTITY), embedder);
        continue;
      }
      if (pending.length === 0) firstLineOfBatch = lineNo;
      pending.push(parseRecordLine(text, lineNo));
      if (pending.length >= opts.batch) await flush();
    }
    if (header === undefined) throw new LineError(1, EMPTY_FILE);
    await flush();
  } catch (err) {
    if (err instanceof ImportRefused) throw err;
    // A line's own fault is that line's; anything else (the store, the embedder) is the batch's and keeps its own kind.
    throw new ImportStopped(err, report, firstLineOfBatch);
  }
  return report;
}

/**
 * Reads the header and the first batch of record lines and checks them,
 * before any store is opened. importRecords would write nothing of a file
 * refused there, so nothing is opened for it either: not even the store an
 * import may create. The lines come back with the rest, for importRecords
 * to read from the top, so stdin is still read once.
 */
export async function checkOpening(lines: AsyncIterable<string>, batch: number): Promise<AsyncIterable<string>> {
  const it = lines[Symbol.asyncIterator]();
  const head: string[] = [];
  try {
    while (head.length < batch + 1) {
      const next = await it.next();
      if (next.done) break;
      head.push(next.value);
    }
    if (head.length === 0) throw new LineError(1, EMPTY_FILE);
    parseHeader(head[0]!);
    for (let i = 1; i < head.length; i++) parseRecordLine(head[i]!, i + 1);
  } catch (err) {
    await it.return?.();
    const nothing: ImportReport = { imported: 0, reembedded: 0, batches: 0, from_embedder: "", to_embedder: "" };
    throw new ImportStopped(err, nothing, 2);
  }
  return (async function* () {
    try {
      yield* head;
      for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
    } finally {
      await it.return?.();
    }
  })();
}

/** The same rule a server start applies: a store keeps the embedder it was first written with. */
function claimIdentity(stored: string | undefined, embedder: Embedder): void {
  const check = checkEmbedderIdentity(stored, embedder.identity);
  if (!check.ok) throw new ImportRefused(check.message);
}
