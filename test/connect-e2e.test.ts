import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { create } from "@bufbuild/protobuf";
import { FieldMaskSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

const run = promisify(execFile);
const ROOT = new URL("..", import.meta.url).pathname;
const BUF = `${ROOT}node_modules/.bin/buf`;

async function sh(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(cmd, args, { cwd: ROOT, maxBuffer: 4 << 20 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const SUMMARY_ENVELOPE = "field=summary hint=too_long: summary must be at most 512 bytes (got 700)";
const storeBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ content: "x", scope: "repo:e2e", source: "user-said", category: "decision", ...extra });

describe("the Connect lane end to end", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("plain curl with Connect JSON gets HTTP 400, out_of_range, the exact envelope and an ErrorInfo TOO_LONG", async () => {
    const r = await sh("curl", [
      "-sS",
      "-w",
      "\n%{http_code}",
      "-X",
      "POST",
      "-H",
      "Content-Type: application/json",
      "-d",
      storeBody({ summary: "s".repeat(700) }),
      `${server.url}/engram.v1.EngramService/StoreMemory`,
    ]);
    const [body, status] = r.stdout.trimEnd().split("\n");
    expect(status).toBe("400");
    const json = JSON.parse(body!);
    expect(json.code).toBe("out_of_range");
    expect(json.message).toBe(SUMMARY_ENVELOPE);
    const info = json.details.find((d: { type: string }) => d.type === "google.rpc.ErrorInfo");
    expect(info.debug.reason).toBe("TOO_LONG");
    expect(info.debug.metadata).toMatchObject({ fields: "summary", hint: "too_long", max: "512", got: "700" });
    expect(json.details.map((d: { type: string }) => d.type)).toContain("google.rpc.BadRequest");
  });

  it("a binary GetMemory answers each new version of a record, not the encoding kept for the one before", async () => {
    const c = server.client();
    const { id } = await c.storeMemory({ content: "first words", scope: "repo:e2e", source: "user-said", category: "decision" });
    for (let i = 0; i < 2; i++) expect((await c.getMemory({ id })).memory?.content).toBe("first words");
    await c.updateMemory({ id, content: "second words", updateMask: create(FieldMaskSchema, { paths: ["content"] }) });
    const updated = (await c.getMemory({ id })).memory!;
    expect(updated.content).toBe("second words");
    // The counts of the three reads land (the update counted itself as it wrote), and the next read shows them.
    await server.store.flushAccess();
    const counted = (await c.getMemory({ id })).memory!;
    expect(counted.content).toBe("second words");
    expect(counted.accessCount).toBe(4n);
    // A JSON caller reads the same record.
    const r = await sh("curl", ["-sS", "-X", "POST", "-H", "Content-Type: application/json", "-d", JSON.stringify({ id }), `${server.url}/engram.v1.EngramService/GetMemory`]);
    expect(JSON.parse(r.stdout).memory).toMatchObject({ id, content: "second words", accessCount: "4" });
  });

  it("buf curl reads one record over Connect, gRPC and gRPC-Web, twice each, as the same Memory", async () => {
    const c = server.client();
    const { id } = await c.storeMemory({ content: "read by buf curl", scope: "repo:e2e", source: "user-said", category: "decision", tags: ["b"] });
    const url = `${server.url}/engram.v1.EngramService/GetMemory`;
    const read = async (protocol: string) => {
      const r = await sh(BUF, ["curl", "--schema", "proto", "--protocol", protocol, "--http2-prior-knowledge", "-d", JSON.stringify({ id }), url]);
      expect(r.code, r.stderr).toBe(0);
      const { memory } = JSON.parse(r.stdout);
      // The access count and its stamp move with every read; the rest is the record.
      const { accessCount: _count, lastAccessedAt: _at, ...rest } = memory;
      return rest;
    };
    const first = await read("connect");
    expect(first).toMatchObject({ id, content: "read by buf curl", tags: ["b"], scope: "repo:e2e" });
    for (const protocol of ["connect", "grpc", "grpc", "grpcweb", "grpcweb"]) expect(await read(protocol), protocol).toEqual(first);
  });

  it("buf curl reaches the same port over Connect and over gRPC with prior knowledge", async () => {
    const body = storeBody({ content: "buf curl stored this" });
    const connect = await sh(BUF, ["curl", "--schema", "proto", "--protocol", "connect", "-d", body, `${server.url}/engram.v1.EngramService/StoreMemory`]);
    expect(connect.code).toBe(0);
    expect(JSON.parse(connect.stdout).shortId).toMatch(/^[0-9A-Z]{10}$/);
    const grpc = await sh(BUF, [
      "curl",
      "--schema",
      "proto",
      "--protocol",
      "grpc",
      "--http2-prior-knowledge",
      "-d",
      JSON.stringify({ scope: "repo:e2e" }),
      `${server.url}/engram.v1.EngramService/ListMemories`,
    ]);
    expect(grpc.code).toBe(0);
    expect(JSON.parse(grpc.stdout).memories.map((m: { summary: string }) => m.summary)).toContain("buf curl stored this");
  });

  it("an invalid request returns the same envelope through buf curl over Connect and over gRPC", async () => {
    const body = storeBody({ summary: "s".repeat(700) });
    const url = `${server.url}/engram.v1.EngramService/StoreMemory`;
    const viaConnect = await sh(BUF, ["curl", "--schema", "proto", "--protocol", "connect", "-d", body, url]);
    const viaGrpc = await sh(BUF, ["curl", "--schema", "proto", "--protocol", "grpc", "--http2-prior-knowledge", "-d", body, url]);
    // buf curl exits with the gRPC code times eight: out_of_range is 11.
    expect(viaConnect.code).toBe(88);
    expect(viaGrpc.code).toBe(88);
    const a = JSON.parse(viaConnect.stderr);
    const b = JSON.parse(viaGrpc.stderr);
    expect(a.code).toBe("out_of_range");
    expect(b.code).toBe("out_of_range");
    expect(a.message).toBe(SUMMARY_ENVELOPE);
    expect(b.message).toBe(SUMMARY_ENVELOPE);
  });

  it("GET /healthz answers ok", async () => {
    const r = await fetch(`${server.url}/healthz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: "ok" });
  });
});

describe("owners and not-found", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: "alice=tok-alice,bob=tok-bob" } });
  });
  afterAll(async () => server.close());

  const notFoundOf = async (p: Promise<unknown>) => {
    const e = await p.then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ConnectError);
    return e as ConnectError;
  };

  it("another owner's record answers `not found: <id as sent>` exactly as a missing id does", async () => {
    const alice = server.client("tok-alice");
    const bob = server.client("tok-bob");
    const stored = await alice.storeMemory({ content: "alice's private note", scope: "repo:a", source: "user-said", category: "gotcha" });
    const missing = randomUUID();
    for (const [input, label] of [
      [stored.id, "uuid"],
      [stored.shortId, "short id"],
      [stored.shortId.toLowerCase(), "lower-case short id"],
    ] as const) {
      const foreign = await notFoundOf(bob.getMemory({ id: input }));
      expect(Code[foreign.code], label).toBe("NotFound");
      expect(foreign.rawMessage, label).toBe(`not found: ${input}`);
    }
    const absent = await notFoundOf(bob.getMemory({ id: missing }));
    expect(Code[absent.code]).toBe("NotFound");
    expect(absent.rawMessage).toBe(`not found: ${missing}`);
    const absentShort = await notFoundOf(bob.getMemory({ id: "ZZZZZZZZZZ" }));
    expect(absentShort.rawMessage).toBe("not found: ZZZZZZZZZZ");
    // The write gate says the same, and alice's record is untouched.
    const del = await notFoundOf(bob.deleteMemory({ id: stored.id }));
    expect(del.rawMessage).toBe(`not found: ${stored.id}`);
    expect((await alice.getMemory({ id: stored.id })).memory?.content).toBe("alice's private note");
  });

  it("a shared record is readable by another owner but not writable", async () => {
    const alice = server.client("tok-alice");
    const bob = server.client("tok-bob");
    const stored = await alice.storeMemory({ content: "team convention", scope: "repo:a", source: "user-said", category: "convention" });
    await alice.setVisibility({ id: stored.id, visibility: 2 });
    expect((await bob.getMemory({ id: stored.id })).memory?.content).toBe("team convention");
    const del = await notFoundOf(bob.deleteMemory({ id: stored.id }));
    expect(del.rawMessage).toBe(`not found: ${stored.id}`);
  });

  it("a request without a valid bearer token is unauthenticated", async () => {
    const e = await notFoundOf(server.client().listScopes({}));
    expect(Code[e.code]).toBe("Unauthenticated");
    const wrong = await notFoundOf(server.client("tok-mallory").listScopes({}));
    expect(Code[wrong.code]).toBe("Unauthenticated");
  });
});
