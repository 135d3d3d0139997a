import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeEmbedder } from "../src/embed/index.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";
import { expectEnvelope, pad, SECRET, type Client, type EnvelopeRow } from "./helpers/envelope-table.js";

/** Every validation of the curation RPCs over a real Connect client. */
type Ctx = { existing: string };
const base = { content: `note ${SECRET}`, scope: "repo:demo", source: "user-said", category: "decision" };
const future = timestampFromDate(new Date(Date.now() + 86_400_000));
const past = timestampFromDate(new Date(Date.now() - 86_400_000));
/** One second past 9999-12-31T23:59:59Z: a Timestamp no RFC3339 text can name. */
const beyondRange = { seconds: 253402300800n, nanos: 0 };
const cite = (over: Record<string, string> = {}) => ({ kind: "file", ref: "src/a.ts", locator: "", pin: "", excerpt: "", ...over });
const rule = { content: `always ${SECRET}`, scope: "rule:repo:demo", summary: "one line" };
const disc = { content: `found ${SECRET}`, kind: "fact", scope: "discovery:repo:demo", citations: [cite()] };
const TRIO = "cursor_mode, offset, and page_token are mutually exclusive";

const rows: EnvelopeRow<Ctx>[] = [
  // ScheduleMemory: store checks first, then the window in order.
  { name: "ScheduleMemory: oversized summary", call: (c) => c.scheduleMemory({ ...base, summary: pad(700), notAfter: future }), envelope: "field=summary hint=too_long: summary must be at most 512 bytes (got 700)", code: Code.OutOfRange },
  { name: "ScheduleMemory: missing content", call: (c) => c.scheduleMemory({ ...base, content: "", notAfter: future }), envelope: "field=content hint=required: content is required", code: Code.InvalidArgument },
  { name: "ScheduleMemory: no bound at all", call: (c) => c.scheduleMemory(base), envelope: "field=not_before,not_after hint=required: schedule_memory requires not_before and/or not_after (use store_memory for unscheduled records)", code: Code.InvalidArgument },
  { name: "ScheduleMemory: a discovery cannot be scheduled", call: (c) => c.scheduleMemory({ ...base, category: "discovery", notAfter: future }), envelope: "field=category hint=not_applicable: discovery is not schedulable; use store_discovery", code: Code.FailedPrecondition },
  { name: "ScheduleMemory: not_before outside the Timestamp range", call: (c) => c.scheduleMemory({ ...base, notBefore: beyondRange }), envelope: "field=not_before hint=format: not_before must be RFC3339", code: Code.InvalidArgument },
  { name: "ScheduleMemory: not_after outside the Timestamp range", call: (c) => c.scheduleMemory({ ...base, notAfter: beyondRange }), envelope: "field=not_after hint=format: not_after must be RFC3339", code: Code.InvalidArgument },
  { name: "ScheduleMemory: not_after in the past", call: (c) => c.scheduleMemory({ ...base, notAfter: past }), envelope: "field=not_after hint=ordering: not_after must be in the future", code: Code.OutOfRange },
  { name: "ScheduleMemory: not_before after not_after", call: (c) => c.scheduleMemory({ ...base, notBefore: timestampFromDate(new Date(Date.now() + 2 * 86_400_000)), notAfter: future }), envelope: "field=not_before,not_after hint=ordering: not_before must be strictly before not_after", code: Code.FailedPrecondition },
  // ListScheduled.
  { name: "ListScheduled: limit above the maximum", call: (c) => c.listScheduled({ scope: "s", limit: 1001n }), envelope: "field=limit hint=out_of_range: limit exceeds the maximum of 1000", code: Code.InvalidArgument },
  { name: "ListScheduled: state outside the set", call: (c) => c.listScheduled({ scope: "s", state: SECRET }), envelope: "field=state hint=enum: state must be one of scheduled|active|expired|all", code: Code.InvalidArgument },
  { name: "ListScheduled: no scope and no cross_spine", call: (c) => c.listScheduled({}), envelope: "field=scope,cross_spine hint=conditional_required: scope is required unless cross_spine is true", code: Code.InvalidArgument },
  { name: "ListScheduled: created_before not RFC3339", call: (c) => c.listScheduled({ scope: "s", createdBefore: SECRET }), envelope: "field=created_before hint=format: created_before must be RFC3339", code: Code.InvalidArgument },
  { name: "ListScheduled: a page_token this server never issued", call: (c) => c.listScheduled({ scope: "s", pageToken: SECRET }), envelope: "field=page_token hint=format: page_token is not a cursor this server issued", code: Code.InvalidArgument },
  // StoreDiscovery.
  { name: "StoreDiscovery: missing content", call: (c) => c.storeDiscovery({ ...disc, content: "" }), envelope: "field=content hint=required: content is required", code: Code.InvalidArgument },
  { name: "StoreDiscovery: oversized content", call: (c) => c.storeDiscovery({ ...disc, content: pad(65537) }), envelope: "field=content hint=too_long: content too large: 65537 bytes (max 65536)", code: Code.OutOfRange },
  { name: "StoreDiscovery: missing scope", call: (c) => c.storeDiscovery({ ...disc, scope: "" }), envelope: "field=scope hint=required: scope is required", code: Code.InvalidArgument },
  { name: "StoreDiscovery: scope without the discovery prefix", call: (c) => c.storeDiscovery({ ...disc, scope: SECRET }), envelope: 'field=scope hint=prefix: scope must be a discovery scope (start with "discovery:")', code: Code.InvalidArgument },
  { name: "StoreDiscovery: kind outside the set", call: (c) => c.storeDiscovery({ ...disc, kind: SECRET }), envelope: 'field=kind hint=enum: kind must be "map" or "fact"', code: Code.InvalidArgument },
  { name: "StoreDiscovery: no citation", call: (c) => c.storeDiscovery({ ...disc, citations: [] }), envelope: "field=citations hint=required: at least one citation is required", code: Code.InvalidArgument },
  { name: "StoreDiscovery: too many citations", call: (c) => c.storeDiscovery({ ...disc, citations: Array.from({ length: 51 }, () => cite()) }), envelope: "field=citations hint=too_many: too many citations: 51 (max 50)", code: Code.OutOfRange },
  // SearchDiscoveries.
  { name: "SearchDiscoveries: missing query", call: (c) => c.searchDiscoveries({}), envelope: "field=query hint=required: query is required", code: Code.InvalidArgument },
  { name: "SearchDiscoveries: k above the maximum", call: (c) => c.searchDiscoveries({ query: "q", k: 1001n }), envelope: "field=k hint=out_of_range: k exceeds the maximum of 1000", code: Code.InvalidArgument },
  { name: "SearchDiscoveries: kind outside the set", call: (c) => c.searchDiscoveries({ query: "q", kind: SECRET }), envelope: 'field=kind hint=enum: kind must be "map" or "fact"', code: Code.InvalidArgument },
  // StoreRule, in the contract's order.
  { name: "StoreRule: missing content", call: (c) => c.storeRule({ ...rule, content: "" }), envelope: "field=content hint=required: content is required", code: Code.InvalidArgument },
  { name: "StoreRule: oversized content", call: (c) => c.storeRule({ ...rule, content: pad(8193) }), envelope: "field=content hint=too_long: content too large: 8193 bytes (max 8192)", code: Code.OutOfRange },
  { name: "StoreRule: scope that is not a rule scope", call: (c) => c.storeRule({ ...rule, scope: SECRET }), envelope: "field=scope hint=prefix: scope must be rule:repo:<repo> or rule:project:<project>", code: Code.InvalidArgument },
  { name: "StoreRule: missing summary", call: (c) => c.storeRule({ ...rule, summary: "" }), envelope: "field=summary hint=required: summary is required for a rule (it is the one-line index entry)", code: Code.InvalidArgument },
  { name: "StoreRule: a summary on two lines", call: (c) => c.storeRule({ ...rule, summary: `${SECRET}\nmore` }), envelope: "field=summary hint=format: rule summary must be a single line (no newlines); it is the index entry", code: Code.InvalidArgument },
  { name: "StoreRule: oversized summary", call: (c) => c.storeRule({ ...rule, summary: pad(257) }), envelope: "field=summary hint=too_long: summary too long: 257 bytes (max 256)", code: Code.OutOfRange },
  // DeleteAll: scope is the only guard before a teardown.
  { name: "DeleteAll: missing scope", call: (c) => c.deleteAll({}), envelope: "field=scope hint=required: scope is required", code: Code.InvalidArgument },
  { name: "ListRules: a scope that is not a rule scope", call: (c) => c.listRules({ scopes: ["rule:repo:ok", SECRET] }), envelope: "field=scopes hint=prefix: scope at position 1 must be rule:repo:<repo> or rule:project:<project>", code: Code.InvalidArgument },
  // SupersedeMemory: argument checks, then set shape.
  { name: "SupersedeMemory: oversized summary", call: (c, x) => c.supersedeMemory({ ...base, summary: pad(700), supersedes: [x.existing] }), envelope: "field=summary hint=too_long: summary must be at most 512 bytes (got 700)", code: Code.OutOfRange },
  { name: "SupersedeMemory: no targets", call: (c) => c.supersedeMemory({ ...base, supersedes: [] }), envelope: "field=supersedes hint=required: supersedes is required", code: Code.InvalidArgument },
  { name: "SupersedeMemory: a blank target", call: (c, x) => c.supersedeMemory({ ...base, supersedes: [x.existing, "  "] }), envelope: "field=supersedes hint=required: supersedes entries must not be blank", code: Code.InvalidArgument },
  { name: "SupersedeMemory: an oversized target", call: (c, x) => c.supersedeMemory({ ...base, supersedes: [x.existing, pad(300)] }), envelope: "field=supersedes hint=too_long: supersedes[1] too large: 300 bytes (max 256)", code: Code.OutOfRange },
  { name: "SupersedeMemory: oversized idempotency key", call: (c, x) => c.supersedeMemory({ ...base, supersedes: [x.existing], idempotencyKey: pad(513) }), envelope: "field=idempotency_key hint=too_long: idempotency_key too large: 513 bytes (max 512)", code: Code.OutOfRange },
  // Archive and restore batch shape.
  { name: "ArchiveMemory: no ids", call: (c) => c.archiveMemory({ ids: [] }), envelope: "field=ids hint=required: ids is required", code: Code.InvalidArgument },
  { name: "ArchiveMemory: more than 1000 ids", call: (c) => c.archiveMemory({ ids: Array.from({ length: 1001 }, (_, i) => `${SECRET}${i}`) }), envelope: "field=ids hint=out_of_range: ids exceeds the maximum of 1000", code: Code.InvalidArgument },
  { name: "ArchiveMemory: a blank id", call: (c, x) => c.archiveMemory({ ids: [x.existing, ""] }), envelope: "field=ids hint=required: ids entries must not be blank", code: Code.InvalidArgument },
  { name: "ArchiveMemory: an oversized id", call: (c, x) => c.archiveMemory({ ids: [x.existing, x.existing, pad(257)] }), envelope: "field=ids hint=too_long: ids[2] too large: 257 bytes (max 256)", code: Code.OutOfRange },
  { name: "RestoreMemory: no ids", call: (c) => c.restoreMemory({ ids: [] }), envelope: "field=ids hint=required: ids is required", code: Code.InvalidArgument },
  { name: "RestoreMemory: more than 1000 ids", call: (c) => c.restoreMemory({ ids: Array.from({ length: 1001 }, () => SECRET) }), envelope: "field=ids hint=out_of_range: ids exceeds the maximum of 1000", code: Code.InvalidArgument },
  { name: "RestoreMemory: a blank id", call: (c) => c.restoreMemory({ ids: [" "] }), envelope: "field=ids hint=required: ids entries must not be blank", code: Code.InvalidArgument },
  { name: "RestoreMemory: an oversized id", call: (c) => c.restoreMemory({ ids: [pad(300)] }), envelope: "field=ids hint=too_long: ids[0] too large: 300 bytes (max 256)", code: Code.OutOfRange },
  // RelatedMemories and ListTags.
  { name: "RelatedMemories: missing id", call: (c) => c.relatedMemories({}), envelope: "field=id hint=required: id is required", code: Code.InvalidArgument },
  { name: "RelatedMemories: k above the maximum", call: (c, x) => c.relatedMemories({ id: x.existing, k: 1001n }), envelope: "field=k hint=out_of_range: k exceeds the maximum of 1000", code: Code.InvalidArgument },
  { name: "ListTags: limit above the maximum", call: (c) => c.listTags({ limit: 1001n }), envelope: "field=limit hint=out_of_range: limit exceeds the maximum of 1000", code: Code.InvalidArgument },
  // The paging trio also guards ListMemories; its rule sentence is shared.
  { name: "ListMemories: all three paging modes", call: (c) => c.listMemories({ scope: "s", cursorMode: true, offset: 1n, pageToken: "x" }), envelope: `field=cursor_mode,offset,page_token hint=mutually_exclusive: ${TRIO}`, code: Code.FailedPrecondition },
];

describe("every curation validation over Connect", () => {
  let server: TestServer;
  let client: Client;
  const ctx: Ctx = { existing: "" };
  const embedder = new FakeEmbedder(64);

  beforeAll(async () => {
    server = await startTestServer({ embedder });
    client = server.client();
    ctx.existing = (await client.storeMemory({ content: "existing", scope: "repo:demo", source: "user-said", category: "decision" })).id;
  });
  afterAll(async () => server.close());

  it("covers a pinned number of validations, each with a unique name", () => {
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
    expect(rows.length).toBe(48);
  });

  for (const row of rows) {
    it(`${row.name} answers the exact envelope and code, echoes nothing, and embeds nothing`, async () => {
      const before = embedder.calls;
      await expectEnvelope(row, client, ctx, server);
      expect(embedder.calls).toBe(before);
    });
  }
});
