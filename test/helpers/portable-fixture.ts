import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Visibility } from "../../src/gen/engram/v1/engram_pb.js";
import { startTestServer, type TestServer } from "./engram-server.js";

export const TOKENS = { alice: "tok-alice", bob: "tok-bob" } as const;

const BASE = { source: "user-said", category: "decision" } as const;

/**
 * A server holding every kind of record an export must carry: two owners,
 * private and shared, archived, superseded, scheduled, a rule
 * and a discovery with a citation.
 */
export async function portableFixture(): Promise<{ server: TestServer; ids: Record<string, string> }> {
  const server = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: `alice=${TOKENS.alice},bob=${TOKENS.bob}` } });
  const alice = server.client(TOKENS.alice);
  const bob = server.client(TOKENS.bob);
  const ids: Record<string, string> = {};
  ids.alicePrivate = (await alice.storeMemory({ ...BASE, content: "alice keeps billing in postgres", scope: "repo:a", tags: ["db", "billing"] })).id;
  ids.aliceShared = (await alice.storeMemory({ ...BASE, content: "alice shares the release checklist", scope: "repo:a", summary: "release checklist" })).id;
  await alice.setVisibility({ id: ids.aliceShared, visibility: Visibility.SHARED });
  ids.aliceArchived = (await alice.storeMemory({ ...BASE, content: "an archived note of alice", scope: "repo:a" })).id;
  await alice.archiveMemory({ ids: [ids.aliceArchived] });
  ids.aliceOld = (await alice.storeMemory({ ...BASE, content: "deploys go out on fridays", scope: "repo:a" })).id;
  ids.aliceNew = (await alice.supersedeMemory({ ...BASE, content: "deploys go out on tuesdays", scope: "repo:a", supersedes: [ids.aliceOld] })).id;
  const day = 86_400_000;
  ids.aliceScheduled = (
    await alice.scheduleMemory({ ...BASE, content: "revisit the cache in spring", scope: "repo:a", notBefore: timestampFromDate(new Date(Date.now() + 30 * day)) })
  ).id;
  ids.bobPrivate = (await bob.storeMemory({ ...BASE, content: "bob prefers tabs", scope: "repo:a", category: "preference" })).id;
  ids.bobShared = (await bob.storeMemory({ ...BASE, content: "bob shares the on-call rota", scope: "repo:b" })).id;
  await bob.setVisibility({ id: ids.bobShared, visibility: Visibility.SHARED });
  ids.rule = (await alice.storeRule({ content: "never push to main", scope: "rule:repo:a", summary: "no pushes to main", tags: ["git"] })).id;
  ids.discovery = (
    await bob.storeDiscovery({
      content: "the router lives in src/routes.ts",
      kind: "fact",
      scope: "discovery:repo:a",
      citations: [{ kind: "file", ref: "src/routes.ts", locator: "1-20" }],
    })
  ).id;
  return { server, ids };
}
