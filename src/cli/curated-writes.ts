import { create } from "@bufbuild/protobuf";
import type { Command } from "commander";
import { collectList, writeDocument } from "../cli-kit/index.js";
import {
  DeleteAllRequestSchema,
  DeleteAllResponseSchema,
  StoreDiscoveryRequestSchema,
  StoreDiscoveryResponseSchema,
  StoreRuleRequestSchema,
  StoreRuleResponseSchema,
} from "../gen/engram/v1/engram_pb.js";
import { addClientFlags, resolveClient, type ClientFlagValues } from "./client-flags.js";
import { emit } from "./output.js";
import { callEngram } from "./rpc.js";
import { parseCitations } from "./write-commands.js";
import { previewDocument, previewText } from "./delete-all-preview.js";

/**
 * The remaining writes an agent can make over MCP: discoveries, rules and a
 * scope teardown. As with every verb, the server validates the fields.
 */
export function registerCuratedWrites(program: Command): void {
  const discovery = program
    .command("store-discovery")
    .summary("write one discovery with its citations")
    .description("Write (or replace with --id) one discovery: what was learned about a code base, anchored by citations (StoreDiscovery).")
    .option("--content <text>", "what was found (required)")
    .option("--kind <kind>", "map or fact (required)")
    .option("--scope <scope>", "a discovery: scope, e.g. discovery:repo:github.com/acme/api (required)")
    .option(
      "--citation <json>",
      'a source anchor as a JSON object, e.g. {"kind":"file","ref":"src/a.ts","locator":"10-20","excerpt":"…"} (1 to 50, repeatable)',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option("--tags <list>", "tags (repeat or comma-separate)", collectList)
    .option("--summary <text>", "one-line summary")
    .option("--id <id>", "replace this discovery in place");
  addClientFlags(discovery).action(
    async (
      o: ClientFlagValues & { content?: string; kind?: string; scope?: string; citation?: string[]; tags?: string[]; summary?: string; id?: string },
      cmd: Command,
    ) => {
      const req = create(StoreDiscoveryRequestSchema, {
        content: o.content ?? "",
        kind: o.kind ?? "",
        scope: o.scope ?? "",
        citations: parseCitations(o.citation),
        tags: o.tags ?? [],
        summary: o.summary ?? "",
        id: o.id ?? "",
      });
      const settings = resolveClient(o, cmd);
      const res = await callEngram(settings, (c, opts) => c.storeDiscovery(req, opts));
      emit(settings.output, StoreDiscoveryResponseSchema, res, () => `stored ${res.shortId}  ${res.id}`);
    },
  );

  const rule = program
    .command("store-rule")
    .summary("write one standing rule")
    .description("Write (or replace with --id) one rule: always shared, indexed by its one-line summary (StoreRule).")
    .option("--content <text>", "the rule (required, at most 8192 bytes)")
    .option("--scope <scope>", "rule:repo:<repo> or rule:project:<project> (required)")
    .option("--summary <text>", "the one-line index entry (required, at most 256 bytes)")
    .option("--tags <list>", "tags (repeat or comma-separate)", collectList)
    .option("--id <id>", "replace this rule in place");
  addClientFlags(rule).action(
    async (o: ClientFlagValues & { content?: string; scope?: string; summary?: string; tags?: string[]; id?: string }, cmd: Command) => {
      const req = create(StoreRuleRequestSchema, {
        content: o.content ?? "",
        scope: o.scope ?? "",
        summary: o.summary ?? "",
        tags: o.tags ?? [],
        id: o.id ?? "",
      });
      const settings = resolveClient(o, cmd);
      const res = await callEngram(settings, (c, opts) => c.storeRule(req, opts));
      emit(settings.output, StoreRuleResponseSchema, res, () => `stored rule ${res.shortId}  ${res.id}`);
    },
  );

  const clear = program
    .command("delete-all")
    .summary("delete the caller's own records in one scope (preview unless --yes)")
    .description(
      "Delete every record the caller owns in --scope, for good (DeleteAll). Other owners' records are untouched. " +
        "Without --yes the server counts what it would delete (a dry run) and nothing is deleted.",
    )
    .option("--scope <scope>", "the scope to clear (required)")
    .option("--yes", "delete for real instead of previewing");
  addClientFlags(clear).action(async (o: ClientFlagValues & { scope?: string; yes?: boolean }, cmd: Command) => {
    const settings = resolveClient(o, cmd);
    const scope = o.scope ?? "";
    if (o.yes !== true) {
      const req = create(DeleteAllRequestSchema, { scope, dryRun: true });
      const res = await callEngram(settings, (c, opts) => c.deleteAll(req, opts));
      const preview = { scope, wouldDelete: res.wouldDelete ?? 0n };
      writeDocument(settings.output, previewDocument(preview), () => previewText(preview));
      return;
    }
    const req = create(DeleteAllRequestSchema, { scope });
    const res = await callEngram(settings, (c, opts) => c.deleteAll(req, opts));
    emit(settings.output, DeleteAllResponseSchema, res, () => `deleted ${res.deleted}`);
  });
}
