import { table } from "../cli-kit/index.js";
import { ArchiveOutcome, type ArchiveResult } from "../gen/engram/v1/engram_pb.js";
import { previewDocument, previewText } from "./delete-all-preview.js";
import type { VerbTable } from "./operation-verb.js";

/**
 * Curation and the store's own reports: discoveries, rules, a scope
 * teardown, archive and restore, and the schema-version histogram. As with
 * every verb, the server validates the fields.
 */

/** An outcome as the core says it: the enum value's name, lower-cased ("ALREADY_ARCHIVED" is already_archived). */
const outcomeWord = (o: ArchiveOutcome): string => ArchiveOutcome[o].toLowerCase();

/** Archive and restore answer one row per id asked for. */
function outcomeTable(res: { results: readonly ArchiveResult[] }): string {
  return table(
    ["REQUESTED", "ID", "OUTCOME"],
    res.results.map((r) => [r.requested, r.id === "" ? "-" : r.id, outcomeWord(r.outcome)]),
  );
}

const TAGS = "tags (repeat or comma-separate)";

export const CURATION_VERBS = {
  "store-discovery": {
    summary: "write one discovery with its citations",
    description: (rpc) => `Write (or replace with --id) one discovery: what was learned about a code base, anchored by citations (${rpc}).`,
    flags: {
      content: { doc: "what was found (required)", placeholder: "text" },
      kind: "map or fact (required)",
      scope: "a discovery: scope, e.g. discovery:repo:github.com/acme/api (required)",
      citations: {
        doc: 'a source anchor as a JSON object, e.g. {"kind":"file","ref":"src/a.ts","locator":"10-20","excerpt":"…"} (1 to 50, repeatable)',
        flag: "citation",
      },
      tags: TAGS,
      summary: { doc: "one-line summary", placeholder: "text" },
      id: "replace this discovery in place",
    },
    text: (res) => `stored ${res.shortId}  ${res.id}`,
  },

  "store-rule": {
    summary: "write one standing rule",
    description: (rpc) => `Write (or replace with --id) one rule: always shared, indexed by its one-line summary (${rpc}).`,
    flags: {
      content: { doc: "the rule (required, at most 8192 bytes)", placeholder: "text" },
      scope: "rule:repo:<repo> or rule:project:<project> (required)",
      summary: { doc: "the one-line index entry (required, at most 256 bytes)", placeholder: "text" },
      tags: TAGS,
      id: "replace this rule in place",
    },
    text: (res) => `stored rule ${res.shortId}  ${res.id}`,
  },

  "delete-all": {
    summary: "delete the caller's own records in one scope (preview unless --yes)",
    description: (rpc) =>
      `Delete every record the caller owns in --scope, for good (${rpc}). Other owners' records are untouched. ` +
      "Without --yes the server counts what it would delete (a dry run) and nothing is deleted.",
    flags: { scope: "the scope to clear (required)" },
    local: [["--yes", "delete for real instead of previewing"]],
    request: (o) => (o.yes === true ? {} : { dryRun: true }),
    answer: (res, req) => {
      if (!req.dryRun) return undefined;
      const preview = { scope: req.scope, wouldDelete: res.wouldDelete ?? 0n };
      return { document: previewDocument(preview), text: previewText(preview) };
    },
    text: (res) => `deleted ${res.deleted}`,
  },

  archive: {
    summary: "hide records from recall, reversibly",
    description: (rpc) => `Archive records: hidden from search and list, still fetchable by id, undone by restore (${rpc}).`,
    argument: ["<ids...>", "UUIDs or short ids"],
    flags: {},
    text: outcomeTable,
  },

  restore: {
    summary: "return archived records to recall",
    description: (rpc) => `Restore archived records (${rpc}).`,
    argument: ["<ids...>", "UUIDs or short ids"],
    flags: {},
    text: outcomeTable,
  },

  "migration-status": {
    summary: "show how many records sit at each schema version",
    description: (rpc) => `Show the schema-version histogram of the whole store and how many records a migration would touch (${rpc}).`,
    flags: {},
    text: (res) =>
      [
        table(
          ["FIELD", "VALUE"],
          [
            ["current_version", String(res.currentVersion)],
            ["total", res.total.toString()],
            ["pending", res.pending.toString()],
            ["absent", res.absent.toString()],
            ["future_total", res.futureTotal.toString()],
          ],
        ),
        "",
        table(
          ["VERSION", "COUNT"],
          [...res.buckets.map((b) => [String(b.version), b.count.toString()]), ...res.future.map((b) => [`${b.version} (future)`, b.count.toString()])],
        ),
      ].join("\n"),
  },
} as const satisfies Partial<VerbTable>;
