import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Command } from "commander";
import { collectList, usageError } from "../cli-kit/index.js";
import {
  CitationSchema,
  DeleteMemoryRequestSchema,
  DeleteMemoryResponseSchema,
  ScheduleMemoryRequestSchema,
  ScheduleMemoryResponseSchema,
  StoreMemoryRequestSchema,
  StoreMemoryResponseSchema,
  SupersedeMemoryRequestSchema,
  SupersedeMemoryResponseSchema,
  UpdateMemoryRequestSchema,
  UpdateMemoryResponseSchema,
  type Citation,
  type StoreMemoryRequest,
} from "../gen/engram/v1/engram_pb.js";
import { addClientFlags, resolveClient, type ClientFlagValues } from "./client-flags.js";
import { argError } from "../argerror/index.js";
import { checkArgKinds } from "../core/arg-kinds.js";
import type { ArgsOf } from "../core/operations.js";
import { parseRfc3339Instant } from "../core/rfc3339.js";
import { emit } from "./output.js";
import { callEngram } from "./rpc.js";
import { storeFromFile } from "./store-from-file.js";
import { memoryTable } from "./text.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const camel = (snake: string) => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Writes: store, schedule, supersede, update, delete. Record fields are the
 * server's to validate (it answers with an envelope naming the field), so a
 * missing --content or --source is reported exactly as the MCP lane reports it.
 */

type WriteArg = keyof ArgsOf<"storeMemory"> & string;

/** A snake_case name as commander and protobuf-es both spell it (base_dir is baseDir). */
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/**
 * One flag per write argument of the core, in the order help lists them: a
 * write argument without a flag fails to compile. `--citation` is singular
 * because it is repeated, once per citation.
 */
const RECORD_FLAGS = {
  content: ["--content <text>", "the record text (required)"],
  scope: ["--scope <scope>", "the scope to write into, e.g. repo:github.com/acme/api (required)"],
  source: ["--source <source>", "user-said or agent-inferred (required)"],
  category: ["--category <category>", "decision, preference, convention or gotcha (required)"],
  tags: ["--tags <list>", "tags (repeat or comma-separate)", collectList],
  repo: ["--repo <repo>", "repository the record is about"],
  workspace: ["--workspace <workspace>", "workspace the record is about"],
  worktree: ["--worktree <path>", "worktree path the record is about"],
  base_dir: ["--base-dir <path>", "base directory the record is about"],
  summary: ["--summary <text>", "one-line summary"],
  citations: [
    "--citation <json>",
    'a source anchor as a JSON object, e.g. {"kind":"file","ref":"src/a.ts","locator":"10-20"} (repeatable)',
    (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
  ],
  idempotency_key: ["--idempotency-key <key>", "retrying with the same key and content replays the first write"],
} as const satisfies Record<WriteArg, readonly [string, string] | readonly [string, string, (v: string, prev: string[] | undefined) => string[]]>;

/** What commander hands the action for the record flags. */
type RecordFlags = { [F in Exclude<WriteArg, "tags" | "citations"> as Camel<F>]?: string } & { tags?: string[]; citation?: string[] };

/**
 * The request fields the record flags fill, found by the core's names: a
 * write argument StoreMemoryRequest lacks is `never` here and cannot be filled.
 */
export type RecordRequestFields = {
  [F in WriteArg as Camel<F>]-?: Camel<F> extends keyof StoreMemoryRequest ? StoreMemoryRequest[Camel<F>] : never;
};

function addRecordFlags(cmd: Command): Command {
  for (const [flags, description, parse] of Object.values<readonly [string, string, ((v: string, prev: string[] | undefined) => string[])?]>(RECORD_FLAGS)) {
    if (parse) cmd.option(flags, description, parse);
    else cmd.option(flags, description);
  }
  return cmd;
}

/**
 * A --citation is JSON the caller typed, exactly what an MCP agent sends as
 * a citations entry, so it is checked by the core's own citation check: the
 * same envelopes, word for word, for an unknown key or a key that is not a
 * string. Text that is not JSON at all is, like any non-object, "must be an
 * object". Nothing the caller typed is repeated.
 */
export function parseCitations(raw: readonly string[] | undefined): Citation[] {
  const values = (raw ?? []).map((text): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  });
  try {
    checkArgKinds({ citations: "citations" }, { citations: values });
  } catch (err) {
    throw usageError((err as Error).message);
  }
  return values.map((v) => create(CitationSchema, v as Partial<Pick<Citation, "kind" | "ref" | "locator" | "pin" | "excerpt">>));
}

function recordFields(o: RecordFlags): RecordRequestFields {
  return {
    content: o.content ?? "",
    scope: o.scope ?? "",
    source: o.source ?? "",
    category: o.category ?? "",
    tags: o.tags ?? [],
    repo: o.repo ?? "",
    workspace: o.workspace ?? "",
    worktree: o.worktree ?? "",
    baseDir: o.baseDir ?? "",
    summary: o.summary ?? "",
    citations: parseCitations(o.citation),
    idempotencyKey: o.idempotencyKey ?? "",
  };
}

export function registerWriteCommands(program: Command): void {
  const store = program
    .command("store")
    .summary("write one record, or every record of a JSON Lines file")
    .description(
      "Write one record (StoreMemory), or with --from-file every record of a JSON Lines file, one object of store_memory's " +
        "arguments per line, in batches (StoreMemories); the first line refused stops the run with its line number, and nothing from it on is written.",
    );
  addRecordFlags(store);
  store.option("--from-file <path>", "a JSON Lines file of records to write instead of the record flags");
  addClientFlags(store).action(async (o: ClientFlagValues & RecordFlags & { fromFile?: string }, cmd: Command) => {
    if (o.fromFile !== undefined) {
      const flag = Object.keys(RECORD_FLAGS).find((f) => cmd.getOptionValueSource(camel(f === "citations" ? "citation" : f)) === "cli");
      if (flag !== undefined) throw usageError("--from-file takes every record from the file; it cannot be combined with the record flags");
      const settings = resolveClient(o, cmd);
      return storeFromFile(o.fromFile, settings);
    }
    const fields = recordFields(o);
    const settings = resolveClient(o, cmd);
    const req = create(StoreMemoryRequestSchema, fields);
    const res = await callEngram(settings, (c, opts) => c.storeMemory(req, opts));
    emit(settings.output, StoreMemoryResponseSchema, res, () => `stored ${res.shortId}  ${res.id}`);
  });

  // The wire carries Timestamps, so the text must become an instant here; the
  // core's own parser does it, and its envelope is what a bad value prints.
  const windowBound = (field: "not_before" | "not_after", text: string | undefined) => {
    try {
      const t = parseRfc3339Instant(field, text);
      return t === undefined ? undefined : { ...timestampFromDate(new Date(t.seconds * 1000)), nanos: t.nanos };
    } catch (err) {
      throw usageError((err as Error).message);
    }
  };

  const schedule = program
    .command("schedule")
    .summary("write one record with a recall window")
    .description("Write one record that is recalled only inside [--not-before, --not-after) (ScheduleMemory).");
  addRecordFlags(schedule);
  schedule
    .option("--not-before <rfc3339>", "recall the record from this instant on")
    .option("--not-after <rfc3339>", "stop recalling the record at this instant; must be in the future");
  addClientFlags(schedule).action(
    async (o: ClientFlagValues & RecordFlags & { notBefore?: string; notAfter?: string }, cmd: Command) => {
      const fields = recordFields(o);
      const settings = resolveClient(o, cmd);
      const req = create(ScheduleMemoryRequestSchema, {
        ...fields,
        notBefore: windowBound("not_before", o.notBefore),
        notAfter: windowBound("not_after", o.notAfter),
      });
      const res = await callEngram(settings, (c, opts) => c.scheduleMemory(req, opts));
      emit(settings.output, ScheduleMemoryResponseSchema, res, () => `stored ${res.shortId}  ${res.id}`);
    },
  );

  const supersede = program
    .command("supersede")
    .summary("replace records with one correcting record")
    .description(
      "Write one new record that supersedes every --supersedes target; targets stay fetchable by id but leave recall (SupersedeMemory).",
    );
  addRecordFlags(supersede);
  supersede
    .option("--supersedes <list>", "UUID or short id of a record being replaced (required; repeat or comma-separate)", collectList)
    .option("--validate-only", "check everything and report the targets, write nothing");
  addClientFlags(supersede).action(
    async (o: ClientFlagValues & RecordFlags & { supersedes?: string[]; validateOnly?: boolean }, cmd: Command) => {
      const fields = recordFields(o);
      const settings = resolveClient(o, cmd);
      const req = create(SupersedeMemoryRequestSchema, {
        ...fields,
        supersedes: o.supersedes ?? [],
        validateOnly: o.validateOnly ?? false,
      });
      const res = await callEngram(settings, (c, opts) => c.supersedeMemory(req, opts));
      emit(settings.output, SupersedeMemoryResponseSchema, res, () =>
        res.validated
          ? `validated: would supersede ${res.supersedes.join(", ")}\n` + memoryTable(res.targets, { score: false, now: new Date() })
          : `stored ${res.shortId}  ${res.id}  superseding ${(o.supersedes ?? []).join(", ")}`,
      );
    },
  );

  const update = program
    .command("update")
    .summary("change fields of one record")
    .description(
      "Change the fields given as flags and leave the rest alone; the update_mask is built from the flags present (UpdateMemory).",
    )
    .argument("<id>", "UUID or short id")
    .option("--content <text>", "new record text")
    .option("--tags <list>", 'new tag set, replacing the old one (repeat or comma-separate; --tags "" clears)', collectList)
    .option("--summary <text>", 'new one-line summary (--summary "" clears)')
    .option("--shared", "make the record readable by every caller")
    .option("--private", "make the record readable by its owner only");
  addClientFlags(update).action(
    async (
      id: string,
      o: ClientFlagValues & { content?: string; tags?: string[]; summary?: string; shared?: boolean; private?: boolean },
      cmd: Command,
    ) => {
      if (o.shared && o.private) throw usageError(argError(["shared", "private"], "mutually_exclusive", "shared and private cannot be combined; give the one to set").message);
      const paths: string[] = [];
      if (o.content !== undefined) paths.push("content");
      if (o.shared || o.private) paths.push("shared");
      if (o.tags !== undefined) paths.push("tags");
      if (o.summary !== undefined) paths.push("summary");
      // The core's own rejection, raised before dialing (the flags are the mask's paths).
      if (paths.length === 0) {
        // Imported here: the core's update module pulls in its validators, which no other verb needs.
        const { updateMaskRequired } = await import("../core/update-memory.js");
        throw usageError(updateMaskRequired().message);
      }
      const settings = resolveClient(o, cmd);
      const req = create(UpdateMemoryRequestSchema, {
        id,
        content: o.content ?? "",
        shared: o.shared ?? false,
        tags: o.tags ?? [],
        summary: o.summary ?? "",
        updateMask: create(FieldMaskSchema, { paths }),
      });
      const res = await callEngram(settings, (c, opts) => c.updateMemory(req, opts));
      emit(settings.output, UpdateMemoryResponseSchema, res, () => `updated ${res.shortId}  ${res.id}`);
    },
  );

  const del = program
    .command("delete")
    .summary("delete one record")
    .description("Delete one of the caller's records for good (DeleteMemory); archive is the reversible alternative.")
    .argument("<id>", "UUID or short id");
  addClientFlags(del).action(async (id: string, o: ClientFlagValues, cmd: Command) => {
    const settings = resolveClient(o, cmd);
    // DeleteMemory answers nothing, so the text line's full id is asked for first when a short id was typed.
    const full = settings.output === "text" && !UUID.test(id) ? (await callEngram(settings, (c, opts) => c.getMemory({ id }, opts))).memory?.id : id;
    const req = create(DeleteMemoryRequestSchema, { id: full ?? id });
    const res = await callEngram(settings, (c, opts) => c.deleteMemory(req, opts));
    emit(settings.output, DeleteMemoryResponseSchema, res, () => `deleted ${full ?? id}`);
  });
}
