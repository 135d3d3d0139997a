import { usageError } from "../cli-kit/index.js";
import { argError } from "../argerror/index.js";
import { isUuid } from "../model/index.js";
import type { ArgsOf, OperationOfVerb } from "../core/index.js";
import { resolveClient } from "./client-flags.js";
import type { FlagDoc, VerbTable } from "./operation-verb.js";
import { callEngram } from "./rpc.js";
import { storeFromFile } from "./store-from-file.js";
import { memoryTable } from "./text.js";

/**
 * Writes: store, schedule, supersede, update, delete. Record fields are the
 * server's to validate (it answers with an envelope naming the field), so a
 * missing --content or --source is reported exactly as the MCP lane reports it.
 */

type WriteArg = keyof ArgsOf<OperationOfVerb<"store">> & string;

/** A snake_case name as commander and protobuf-es both spell it (base_dir is baseDir). */
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/**
 * One flag per write argument of the core, in the order help lists them: a
 * write argument without a flag fails to compile. `--citation` is singular
 * because it is repeated, once per citation.
 */
const RECORD_FLAGS = {
  content: { doc: "the record text (required)", placeholder: "text" },
  scope: "the scope to write into, e.g. repo:github.com/acme/api (required)",
  source: "user-said or agent-inferred (required)",
  category: "decision, preference, convention or gotcha (required)",
  tags: "tags (repeat or comma-separate)",
  repo: "repository the record is about",
  workspace: "workspace the record is about",
  worktree: { doc: "worktree path the record is about", placeholder: "path" },
  baseDir: { doc: "base directory the record is about", placeholder: "path" },
  summary: { doc: "one-line summary", placeholder: "text" },
  citations: {
    doc: 'a source anchor as a JSON object, e.g. {"kind":"file","ref":"src/a.ts","locator":"10-20"} (repeatable)',
    flag: "citation",
  },
  idempotencyKey: { doc: "retrying with the same key and content replays the first write", placeholder: "key" },
} as const satisfies { readonly [F in WriteArg as Camel<F>]: FlagDoc };

/** The option names commander gives the record flags. */
const RECORD_OPTION_KEYS = Object.entries(RECORD_FLAGS).map(([field, doc]) => (typeof doc === "object" && "flag" in doc ? doc.flag : field));

const stored = (res: { shortId: string; id: string }) => `stored ${res.shortId}  ${res.id}`;

export const WRITE_VERBS = {
  store: {
    summary: "write one record, or every record of a JSON Lines file",
    description: (rpc) =>
      `Write one record (${rpc}), or with --from-file every record of a JSON Lines file, one object of a record's ` +
      "fields per line by their proto names, sent in batches; the first line refused stops the run with its line number, and nothing from it on is written.",
    flags: RECORD_FLAGS,
    local: [["--from-file <path>", "a JSON Lines file of records to write instead of the record flags"]],
    instead: (o, cmd) => {
      if (o.fromFile === undefined) return undefined;
      if (RECORD_OPTION_KEYS.some((k) => cmd.getOptionValueSource(k) === "cli")) {
        throw usageError("--from-file takes every record from the file; it cannot be combined with the record flags");
      }
      return storeFromFile(o.fromFile as string, resolveClient(o, cmd));
    },
    text: stored,
  },

  schedule: {
    summary: "write one record with a recall window",
    description: (rpc) => `Write one record that is recalled only inside [--not-before, --not-after) (${rpc}).`,
    flags: {
      ...RECORD_FLAGS,
      notBefore: "recall the record from this instant on",
      notAfter: "stop recalling the record at this instant; must be in the future",
    },
    text: stored,
  },

  supersede: {
    summary: "replace records with one correcting record",
    description: (rpc) => `Write one new record that supersedes every --supersedes target; targets stay fetchable by id but leave recall (${rpc}).`,
    flags: {
      ...RECORD_FLAGS,
      supersedes: "UUID or short id of a record being replaced (required; repeat or comma-separate)",
      validateOnly: "check everything and report the targets, write nothing",
    },
    text: (res, o) =>
      res.validated
        ? `validated: would supersede ${res.supersedes.join(", ")}\n` + memoryTable(res.targets, { score: false, now: new Date() })
        : `${stored(res)}  superseding ${((o.supersedes as string[] | undefined) ?? []).join(", ")}`,
  },

  update: {
    summary: "change fields of one record",
    description: (rpc) => `Change the fields given as flags and leave the rest alone; the update_mask is built from the flags present (${rpc}).`,
    argument: ["<id>", "UUID or short id"],
    flags: {
      content: { doc: "new record text", placeholder: "text" },
      tags: 'new tag set, replacing the old one (repeat or comma-separate; --tags "" clears)',
      summary: { doc: 'new one-line summary (--summary "" clears)', placeholder: "text" },
      shared: "make the record readable by every caller",
    },
    local: [["--private", "make the record readable by its owner only"]],
    // The mask's paths are the flags present; none at all is the core's own rejection, raised before dialing.
    request: async (o) => {
      if (o.shared && o.private) throw usageError(argError(["shared", "private"], "mutually_exclusive", "shared and private cannot be combined; give the one to set").message);
      const paths: string[] = [];
      if (o.content !== undefined) paths.push("content");
      if (o.shared || o.private) paths.push("shared");
      if (o.tags !== undefined) paths.push("tags");
      if (o.summary !== undefined) paths.push("summary");
      if (paths.length === 0) {
        // Imported here: the core's update module pulls in its validators, which no other verb needs.
        const { updateMaskRequired } = await import("../core/update-memory.js");
        throw usageError(updateMaskRequired().message);
      }
      return { updateMask: { paths } };
    },
    text: (res) => `updated ${res.shortId}  ${res.id}`,
  },

  delete: {
    summary: "delete one record",
    description: (rpc) => `Delete one of the caller's records for good (${rpc}); archive is the reversible alternative.`,
    argument: ["<id>", "UUID or short id"],
    flags: {},
    // The answer names nothing, so the text line's full id is asked for first when a short id was typed.
    request: async (_o, { argument, settings }) => {
      const id = argument as string;
      const s = settings();
      if (s.output !== "text" || isUuid(id)) return {};
      const full = (await callEngram(s, (c, opts) => c.getMemory({ id }, opts))).memory?.id;
      return { id: full ?? id };
    },
    text: (_res, _o, req) => `deleted ${req.id}`,
  },
} as const satisfies Partial<VerbTable>;
