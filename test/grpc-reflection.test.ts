import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { create, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1 from "../src/gen/grpc/reflection/v1/reflection_pb.js";
import { startTestServer, type TestServer } from "./helpers/engram-server.js";

const run = promisify(execFile);
const BUF = resolve("node_modules/.bin/buf");
const TOKEN = "reflection-test-token";
/** Somewhere with no buf.yaml and no protos: only reflection can tell buf the schema. */
const ELSEWHERE = mkdtempSync(join(tmpdir(), "engram-bufcurl-"));

async function bufCurl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(BUF, ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args], { cwd: ELSEWHERE, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("gRPC server reflection on the service port", () => {
  let server: TestServer;
  const auth = ["-H", `Authorization: Bearer ${TOKEN}`, "--reflect-header", `Authorization: Bearer ${TOKEN}`];

  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_AUTH_TOKENS: `alice=${TOKEN}` } });
    await server.client(TOKEN).storeMemory({ content: "We use PostgreSQL for billing", scope: "repo:demo", source: "user-said", category: "decision" });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(ELSEWHERE, { recursive: true, force: true });
  });

  it("lets buf curl list the services without --schema", async () => {
    const r = await bufCurl([...auth, "--list-services", server.url]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim().split("\n")).toEqual(["engram.v1.EngramService", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"]);
  });

  it("lets buf curl call SearchMemories over gRPC with the schema it learned by reflection", async () => {
    const r = await bufCurl([...auth, "-d", '{"query":"which database","scope":"repo:demo"}', `${server.url}/engram.v1.EngramService/SearchMemories`]);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { memories: { summary: string; owner: string }[] };
    expect(body.memories.map((m) => [m.summary, m.owner])).toEqual([["We use PostgreSQL for billing", "alice"]]);
  });

  it("answers the older v1alpha protocol too", async () => {
    const r = await bufCurl([...auth, "--reflect-protocol", "grpc-v1alpha", "--list-methods", server.url]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")).toContain("engram.v1.EngramService/SearchMemories");
  });

  it("refuses reflection to a caller without a valid bearer token, as the service does", async () => {
    const r = await bufCurl(["-H", `Authorization: Bearer ${TOKEN}`, "--list-services", server.url]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe("");
    const refused = server.log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.procedure === "ServerReflectionInfo" && l.code === "unauthenticated");
    expect(refused.length).toBeGreaterThan(0);
  });

  it("serves engram.proto with its imports, each file once per stream, and a fixed not-found text", async () => {
    const client = createClient(
      v1.ServerReflection,
      createGrpcTransport({
        baseUrl: server.url,
        interceptors: [
          (next) => (req) => {
            req.header.set("authorization", `Bearer ${TOKEN}`);
            return next(req);
          },
        ],
      }),
    );
    async function* requests() {
      yield create(v1.ServerReflectionRequestSchema, { messageRequest: { case: "fileContainingSymbol", value: "engram.v1.EngramService.SearchMemories" } });
      yield create(v1.ServerReflectionRequestSchema, { messageRequest: { case: "fileByFilename", value: "google/protobuf/timestamp.proto" } });
      yield create(v1.ServerReflectionRequestSchema, { messageRequest: { case: "fileContainingSymbol", value: "google.rpc.ErrorInfo" } });
      yield create(v1.ServerReflectionRequestSchema, { messageRequest: { case: "fileContainingSymbol", value: "no.such.Thing" } });
    }
    const answers: string[][] = [];
    for await (const res of client.serverReflectionInfo(requests())) {
      const m = res.messageResponse;
      if (m.case === "fileDescriptorResponse") answers.push(m.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b).name));
      else if (m.case === "errorResponse") answers.push([`error ${m.value.errorCode}: ${m.value.errorMessage}`]);
    }
    expect(answers).toEqual([
      ["google/protobuf/field_mask.proto", "google/protobuf/timestamp.proto", "engram/v1/engram.proto"],
      ["google/protobuf/timestamp.proto"],
      ["google/protobuf/duration.proto", "google/rpc/error_details.proto"],
      ["error 5: symbol not found"],
    ]);
  });
});
