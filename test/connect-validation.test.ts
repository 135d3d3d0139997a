import { Code, ConnectError } from "@connectrpc/connect";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { Visibility } from "../src/gen/engram/v1/engram_pb.js";
import { FakeEmbedder } from "../src/embed/index.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

/**
 * Every validation of the foundation RPCs, through a real Connect client
 * against a real server: the exact envelope, the Connect code, the ErrorInfo
 * reason, and that the submitted secret appears neither in the error nor in
 * the server log.
 */
const SECRET = "sekrit-7f3a-DO-NOT-ECHO";
const pad = (n: number) => (SECRET + "x".repeat(n)).slice(0, n);

const valid = { content: `remember ${SECRET}`, scope: "repo:demo", source: "user-said", category: "decision" };
const citation = (over: Record<string, string> = {}) => ({ kind: "file", ref: "src/a.ts", locator: "", pin: "", excerpt: "", ...over });

type Client = ReturnType<TestServer["client"]>;
type Row = {
  name: string;
  call: (c: Client, ids: { existing: string }) => Promise<unknown>;
  envelope: string;
  code: Code;
};

const rows: Row[] = [
  // StoreMemory, in the contract's order.
  {
    name: "StoreMemory: an oversized summary",
    call: (c) => c.storeMemory({ ...valid, summary: pad(700) }),
    envelope: "field=summary hint=too_long: summary must be at most 512 bytes (got 700)",
    code: Code.OutOfRange,
  },
  {
    name: "StoreMemory: an oversized summary is rejected before content presence is checked",
    call: (c) => c.storeMemory({ ...valid, content: "", summary: pad(700) }),
    envelope: "field=summary hint=too_long: summary must be at most 512 bytes (got 700)",
    code: Code.OutOfRange,
  },
  {
    name: "StoreMemory: missing content",
    call: (c) => c.storeMemory({ ...valid, content: "", summary: SECRET }),
    envelope: "field=content hint=required: content is required",
    code: Code.InvalidArgument,
  },
  {
    name: "StoreMemory: oversized content",
    call: (c) => c.storeMemory({ ...valid, content: pad(70000) }),
    envelope: "field=content hint=too_long: content too large: 70000 bytes (max 65536)",
    code: Code.OutOfRange,
  },
  {
    name: "StoreMemory: missing scope",
    call: (c) => c.storeMemory({ ...valid, scope: "" }),
    envelope: "field=scope hint=required: scope is required",
    code: Code.InvalidArgument,
  },
  {
    name: "StoreMemory: missing source",
    call: (c) => c.storeMemory({ ...valid, source: "" }),
    envelope: "field=source hint=required: source is required",
    code: Code.InvalidArgument,
  },
  {
    name: "StoreMemory: missing category",
    call: (c) => c.storeMemory({ ...valid, category: "" }),
    envelope: "field=category hint=required: category is required",
    code: Code.InvalidArgument,
  },
  {
    name: "StoreMemory: too many tags",
    call: (c) => c.storeMemory({ ...valid, tags: Array.from({ length: 129 }, (_, i) => `${SECRET}-${i}`) }),
    envelope: "field=tags hint=too_many: too many tags: 129 (max 128)",
    code: Code.OutOfRange,
  },
  {
    name: "StoreMemory: one oversized tag",
    call: (c) => c.storeMemory({ ...valid, tags: ["a", "b", "c", pad(200)] }),
    envelope: "field=tags hint=too_long: tag 3 too large: 200 bytes (max 128)",
    code: Code.OutOfRange,
  },
  {
    name: "StoreMemory: too many citations",
    call: (c) => c.storeMemory({ ...valid, citations: Array.from({ length: 51 }, () => citation({ ref: SECRET })) }),
    envelope: "field=citations hint=too_many: too many citations: 51 (max 50)",
    code: Code.OutOfRange,
  },
  {
    name: "StoreMemory: a citation kind outside the set",
    call: (c) => c.storeMemory({ ...valid, citations: [citation(), citation(), citation({ kind: SECRET })] }),
    envelope: "field=citations[i].kind hint=enum: citation 2: kind must be one of file|commit|url|repo",
    code: Code.InvalidArgument,
  },
  {
    name: "StoreMemory: a citation without ref",
    call: (c) => c.storeMemory({ ...valid, citations: [citation(), citation(), citation({ ref: "", excerpt: SECRET })] }),
    envelope: "field=citations[i].ref hint=required: citation 2: ref is required (the source anchor)",
    code: Code.InvalidArgument,
  },
  {
    name: "StoreMemory: an oversized citation excerpt",
    call: (c) => c.storeMemory({ ...valid, citations: [citation({ excerpt: pad(16385) })] }),
    envelope: "field=citations[i].excerpt hint=too_long: citation 0: excerpt too large: 16385 bytes (max 16384)",
    code: Code.OutOfRange,
  },
  {
    name: "StoreMemory: an oversized idempotency key",
    call: (c) => c.storeMemory({ ...valid, idempotencyKey: pad(600) }),
    envelope: "field=idempotency_key hint=too_long: idempotency_key too large: 600 bytes (max 512)",
    code: Code.OutOfRange,
  },
  // GetMemory.
  {
    name: "GetMemory: missing id",
    call: (c) => c.getMemory({ id: "" }),
    envelope: "field=id hint=required: id is required",
    code: Code.InvalidArgument,
  },
  // SearchMemories: query, k, scope rule, window.
  {
    name: "SearchMemories: missing query",
    call: (c) => c.searchMemories({ scope: SECRET }),
    envelope: "field=query hint=required: query is required",
    code: Code.InvalidArgument,
  },
  {
    name: "SearchMemories: k above the maximum",
    call: (c) => c.searchMemories({ query: SECRET, scope: "s", k: 1001n }),
    envelope: "field=k hint=out_of_range: k exceeds the maximum of 1000",
    code: Code.InvalidArgument,
  },
  {
    name: "SearchMemories: k above the maximum is rejected before the scope rule",
    call: (c) => c.searchMemories({ query: SECRET, k: 5000n }),
    envelope: "field=k hint=out_of_range: k exceeds the maximum of 1000",
    code: Code.InvalidArgument,
  },
  {
    name: "SearchMemories: no scope and no cross_spine",
    call: (c) => c.searchMemories({ query: SECRET }),
    envelope: "field=scope,cross_spine hint=conditional_required: scope is required unless cross_spine is true",
    code: Code.InvalidArgument,
  },
  {
    name: "SearchMemories: created_after not RFC3339",
    call: (c) => c.searchMemories({ query: "q", scope: "s", createdAfter: SECRET }),
    envelope: "field=created_after hint=format: created_after must be RFC3339",
    code: Code.InvalidArgument,
  },
  {
    name: "SearchMemories: created_before not RFC3339",
    call: (c) => c.searchMemories({ query: "q", scope: "s", createdBefore: "2026-13-45" }),
    envelope: "field=created_before hint=format: created_before must be RFC3339",
    code: Code.InvalidArgument,
  },
  {
    name: "SearchMemories: a blank filter tag, which no record holds",
    call: (c) => c.searchMemories({ query: "q", scope: "s", tags: ["go", " "] }),
    envelope: "field=tags hint=required: tags entries must not be blank",
    code: Code.InvalidArgument,
  },
  {
    name: "SearchMemories: more filter tags than a record may hold",
    call: (c) => c.searchMemories({ query: "q", scope: "s", tags: Array.from({ length: 129 }, (_, i) => `t${i}`) }),
    envelope: "field=tags hint=too_many: too many tags: 129 (max 128)",
    code: Code.OutOfRange,
  },
  // ListMemories: limit, trio, visibility, scope rule, window, cursor.
  {
    name: "ListMemories: limit above the maximum",
    call: (c) => c.listMemories({ scope: "s", limit: 1001n }),
    envelope: "field=limit hint=out_of_range: limit exceeds the maximum of 1000",
    code: Code.InvalidArgument,
  },
  {
    name: "ListMemories: cursor_mode with an offset",
    call: (c) => c.listMemories({ scope: "s", cursorMode: true, offset: 5n }),
    envelope: "field=cursor_mode,offset,page_token hint=mutually_exclusive: cursor_mode, offset, and page_token are mutually exclusive",
    code: Code.FailedPrecondition,
  },
  {
    name: "ListMemories: a page_token with an offset",
    call: (c) => c.listMemories({ scope: "s", pageToken: SECRET, offset: 5n }),
    envelope: "field=cursor_mode,offset,page_token hint=mutually_exclusive: cursor_mode, offset, and page_token are mutually exclusive",
    code: Code.FailedPrecondition,
  },
  {
    name: "ListMemories: visibility outside the set",
    call: (c) => c.listMemories({ scope: "s", visibility: SECRET }),
    envelope: "field=visibility hint=enum: visibility must be one of private|shared (or empty for both)",
    code: Code.InvalidArgument,
  },
  {
    name: "ListMemories: no scope and no cross_spine",
    call: (c) => c.listMemories({}),
    envelope: "field=scope,cross_spine hint=conditional_required: scope is required unless cross_spine is true",
    code: Code.InvalidArgument,
  },
  {
    name: "ListMemories: created_after not RFC3339",
    call: (c) => c.listMemories({ scope: "s", createdAfter: SECRET }),
    envelope: "field=created_after hint=format: created_after must be RFC3339",
    code: Code.InvalidArgument,
  },
  {
    name: "ListMemories: a page_token this server never issued",
    call: (c) => c.listMemories({ scope: "s", pageToken: SECRET }),
    envelope: "field=page_token hint=format: page_token is not a cursor this server issued",
    code: Code.InvalidArgument,
  },
  {
    // Its time sorts past every record's, so taken as it is it would page from the start.
    name: "ListMemories: a page_token in a cursor's shape whose time is not a time",
    call: (c) => c.listMemories({ scope: "s", pageToken: Buffer.from(JSON.stringify({ c: SECRET, seen: [] })).toString("base64url") }),
    envelope: "field=page_token hint=format: page_token is not a cursor this server issued",
    code: Code.InvalidArgument,
  },
  // UpdateMemory: mask, summary, content, id, then caps on an owned record.
  {
    name: "UpdateMemory: no update_mask",
    call: (c, ids) => c.updateMemory({ id: ids.existing, content: SECRET }),
    envelope: "field=update_mask hint=required: update_mask must contain at least one path, each of: content, shared, tags, summary",
    code: Code.InvalidArgument,
  },
  {
    name: "UpdateMemory: an update_mask path outside the set",
    call: (c, ids) => c.updateMemory({ id: ids.existing, updateMask: create(FieldMaskSchema, { paths: ["owner"] }) }),
    envelope: "field=update_mask hint=enum: update_mask must contain at least one path, each of: content, shared, tags, summary",
    code: Code.InvalidArgument,
  },
  {
    name: "UpdateMemory: an oversized summary",
    call: (c, ids) => c.updateMemory({ id: ids.existing, summary: pad(700), updateMask: create(FieldMaskSchema, { paths: ["summary"] }) }),
    envelope: "field=summary hint=too_long: summary must be at most 512 bytes (got 700)",
    code: Code.OutOfRange,
  },
  {
    name: "UpdateMemory: content named in the mask but empty",
    call: (c, ids) => c.updateMemory({ id: ids.existing, content: "", updateMask: create(FieldMaskSchema, { paths: ["content"] }) }),
    envelope: "field=content hint=required: content is required",
    code: Code.InvalidArgument,
  },
  {
    name: "UpdateMemory: missing id",
    call: (c) => c.updateMemory({ id: "", summary: SECRET, updateMask: create(FieldMaskSchema, { paths: ["summary"] }) }),
    envelope: "field=id hint=required: id is required",
    code: Code.InvalidArgument,
  },
  {
    name: "UpdateMemory: oversized new content",
    call: (c, ids) => c.updateMemory({ id: ids.existing, content: pad(70000), updateMask: create(FieldMaskSchema, { paths: ["content"] }) }),
    envelope: "field=content hint=too_long: content too large: 70000 bytes (max 65536)",
    code: Code.OutOfRange,
  },
  {
    name: "UpdateMemory: too many new tags",
    call: (c, ids) =>
      c.updateMemory({ id: ids.existing, tags: Array.from({ length: 129 }, (_, i) => `${SECRET}${i}`), updateMask: create(FieldMaskSchema, { paths: ["tags"] }) }),
    envelope: "field=tags hint=too_many: too many tags: 129 (max 128)",
    code: Code.OutOfRange,
  },
  // DeleteMemory and SetVisibility.
  {
    name: "DeleteMemory: missing id",
    call: (c) => c.deleteMemory({ id: "" }),
    envelope: "field=id hint=required: id is required",
    code: Code.InvalidArgument,
  },
  {
    name: "SetVisibility: missing id",
    call: (c) => c.setVisibility({ id: "", visibility: Visibility.SHARED }),
    envelope: "field=id hint=required: id is required",
    code: Code.InvalidArgument,
  },
  {
    name: "SetVisibility: unspecified visibility",
    call: (c, ids) => c.setVisibility({ id: ids.existing }),
    envelope: "field=visibility hint=required: visibility is required",
    code: Code.InvalidArgument,
  },
];

describe("every foundation validation over Connect", () => {
  let server: TestServer;
  let client: Client;
  const ids = { existing: "" };
  const embedder = new FakeEmbedder(64);

  beforeAll(async () => {
    server = await startTestServer({ embedder });
    client = server.client();
    const stored = await client.storeMemory({ content: "an existing record", scope: "repo:demo", source: "user-said", category: "decision" });
    ids.existing = stored.id;
  });
  afterAll(async () => server.close());

  it("covers a pinned number of validations, each with a unique name", () => {
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
    expect(rows.length).toBe(41);
  });

  for (const row of rows) {
    it(`${row.name} answers the exact envelope, its code, and echoes nothing`, async () => {
      const before = embedder.calls;
      const err = await row.call(client, ids).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConnectError);
      const ce = err as ConnectError;
      expect(ce.rawMessage).toBe(row.envelope);
      expect(Code[ce.code]).toBe(Code[row.code]);
      const info = ce.findDetails(ErrorInfoSchema)[0];
      expect(info?.reason).toBe(row.envelope.split(" hint=")[1]!.split(":")[0]!.toUpperCase());
      expect(info?.domain).toBe("engram.v1");
      expect(JSON.stringify(ce)).not.toContain(SECRET);
      expect(ce.message).not.toContain(SECRET);
      expect(ce.findDetails(ErrorInfoSchema).map((d) => JSON.stringify(d.metadata)).join("")).not.toContain(SECRET);
      expect(server.log.text()).not.toContain(SECRET);
      // A rejected call costs nothing: no embedding happened.
      expect(embedder.calls).toBe(before);
    });
  }
});
