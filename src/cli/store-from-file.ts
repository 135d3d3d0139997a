import { createReadStream, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { create } from "@bufbuild/protobuf";
import type { Code } from "@connectrpc/connect";
import { CliFailure, cliLine, progressMode, ProgressReporter, usageError } from "../cli-kit/index.js";
import { CONNECT_CODE_NAME, EXIT, exitForConnectCode, isServerText, type ExitCode } from "../argerror/index.js";
import { DEFAULT_LIMITS, recordArguments, type StoreArgs } from "../core/index.js";
import {
  StoreMemoriesRequestSchema,
  StoreMemoriesResponseSchema,
  StoreMemoryRequestSchema,
  type StoreMemoryRequest,
  type StoreMemoryResult,
} from "../gen/engram/v1/engram_pb.js";
import type { ClientSettings } from "./client-flags.js";
import { emit } from "./output.js";
import { callEngram } from "./rpc.js";

/**
 * `engram store --from-file records.jsonl`: one record per line, each a JSON
 * object of a record's write arguments, sent as batches in file
 * order with stop_at_first_error. The first line refused (here, or by the
 * server) ends the run with its line number and envelope: nothing from that
 * line on is written, and every record before it is.
 */

/** Line bytes per request: well under the server's default body limit, and a batch of full-size records stays inside one --timeout. */
const BATCH_BYTES = 512 * 1024;

type Pending = { line: number; request: StoreMemoryRequest };

/** A line the run stops at: its number, why, and the exit status that goes with it. */
class LineRefused extends Error {
  constructor(
    readonly line: number,
    readonly text: string,
    readonly exitCode: ExitCode,
  ) {
    super(text);
  }
}

const CODE_OF_NAME = new Map(Object.entries(CONNECT_CODE_NAME).map(([code, name]) => [name, Number(code) as Code]));

/** A line's JSON; a line that does not parse is refused as not an object, the words an agent would get for it. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * A line's arguments as the request's fields. The core's argument names are
 * the proto's field names, so each is found by its own name; the server
 * refuses to start when an argument has no field.
 */
function requestOf(a: StoreArgs): StoreMemoryRequest {
  const args = a as Readonly<Record<string, unknown>>;
  const init: Record<string, unknown> = {};
  for (const f of StoreMemoryRequestSchema.fields) if (args[f.name] !== undefined) init[f.localName] = args[f.name];
  return create(StoreMemoryRequestSchema, init);
}

/** Why the file cannot be read, never a word of its path. */
function unreadable(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return "--from-file must name a regular file";
  } catch (err) {
    return `cannot read the --from-file file (${(err as NodeJS.ErrnoException).code ?? "unreadable"})`;
  }
  return undefined;
}

function linesOf(file: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Number.POSITIVE_INFINITY });
}

/** The file's non-blank lines, read once ahead so progress can say of how many; only when progress is shown. */
async function recordLines(file: string): Promise<number> {
  let n = 0;
  for await (const text of linesOf(file)) if (text.trim() !== "") n++;
  return n;
}

export async function storeFromFile(file: string, settings: ClientSettings): Promise<void> {
  const why = unreadable(file);
  if (why !== undefined) throw usageError(why);
  const results: StoreMemoryResult[] = [];
  const mode = progressMode();
  const reporter = new ProgressReporter(mode, "stored");
  const total = mode === "off" ? 0 : await recordLines(file);
  let pending: Pending[] = [];
  let bytes = 0;

  const send = async (): Promise<void> => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    bytes = 0;
    const req = create(StoreMemoriesRequestSchema, { memories: batch.map((p) => p.request), stopAtFirstError: true });
    const res = await callEngram(settings, (c, opts) => c.storeMemories(req, opts)).catch((err: unknown) => {
      // Refused as a whole before any record was read (a line too large for
      // one request): the batch's first line is where nothing was written from.
      if (err instanceof CliFailure && err.exitCode === EXIT.usage && isServerText(err.line)) throw new LineRefused(batch[0]!.line, err.line, err.exitCode);
      throw err;
    });
    for (const [i, r] of res.results.entries()) {
      if (r.error) {
        const code = CODE_OF_NAME.get(r.error.code);
        throw new LineRefused(batch[i]!.line, r.error.message, code === undefined ? EXIT.unclassified : exitForConnectCode(code));
      }
      results.push(r);
    }
    reporter.update(results.length, total);
  };

  try {
    let line = 0;
    for await (const text of linesOf(file)) {
      line++;
      if (text.trim() === "") continue;
      let record: StoreArgs;
      try {
        record = recordArguments(jsonOf(text));
      } catch (err) {
        // Everything before this line goes first; then the run stops here.
        await send();
        throw new LineRefused(line, (err as Error).message, EXIT.usage);
      }
      const size = Buffer.byteLength(text);
      if (pending.length >= DEFAULT_LIMITS.maxBatchRecords || (pending.length > 0 && bytes + size > BATCH_BYTES)) await send();
      pending.push({ line, request: requestOf(record) });
      bytes += size;
    }
    await send();
  } catch (err) {
    if (err instanceof LineRefused) {
      throw new CliFailure(
        err.exitCode,
        cliLine(`line ${err.line}: ${err.text}; nothing from this line on was written (${results.length} record(s) stored before it)`),
      );
    }
    throw err;
  } finally {
    reporter.finish();
  }
  if (results.length === 0) throw usageError("--from-file holds no record (one JSON object per line)");
  const doc = create(StoreMemoriesResponseSchema, { results });
  emit(settings.output, StoreMemoriesResponseSchema, doc, () => results.map((r) => `stored ${r.shortId}  ${r.id}`).join("\n"));
}
