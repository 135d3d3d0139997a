/**
 * The Connect lane decodes a request body once, in the library: engram's
 * diagnosis runs only when that decode refuses the body. These drive the
 * hand-off (decodeOnce) against the library's own handlers for two methods
 * and count what reaches them.
 */
import { create, toBinary, type JsonValue } from "@bufbuild/protobuf";
import { createConnectRouter, createContextValues, type ConnectError } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from "@connectrpc/connect/protocol";
import { describe, expect, it } from "vitest";
import { toConnectError } from "../src/connect/index.js";
import { decodeOnce, LIBRARY_JSON_OPTIONS, type OneMessage } from "../src/connect/decode-once.js";
import { decodeWatchInterceptor } from "../src/connect/decode-watch.js";
import { silentLogger } from "../src/core/index.js";
import { EngramService, GetMemoryRequestSchema, GetMemoryResponseSchema, SearchMemoriesResponseSchema } from "../src/gen/engram/v1/engram_pb.js";

type Seen = { bodies: (Uint8Array | JsonValue | "failing")[]; ids: string[]; ks: bigint[]; refused: ConnectError[] };

function harness(procedure: "GetMemory" | "SearchMemories") {
  const seen: Seen = { bodies: [], ids: [], ks: [], refused: [] };
  const router = createConnectRouter({ jsonOptions: LIBRARY_JSON_OPTIONS, interceptors: [decodeWatchInterceptor] });
  router.service(EngramService, {
    getMemory: (req) => {
      seen.ids.push(req.id);
      return create(GetMemoryResponseSchema, {});
    },
    searchMemories: (req) => {
      seen.ks.push(req.k);
      return create(SearchMemoriesResponseSchema, {});
    },
  });
  const library = router.handlers.find((h) => h.method.name === procedure)!;
  const inner = Object.assign(async (req: UniversalServerRequest): Promise<UniversalServerResponse> => {
    const { first, body } = await peek(req.body);
    seen.bodies.push(first);
    return library({ ...req, body });
  }, library) as UniversalHandler;

  const call = (contentType: string, msg: OneMessage) => {
    const req = {
      httpVersion: "1.1",
      url: `http://localhost/engram.v1.EngramService/${procedure}`,
      method: "POST",
      header: new Headers({ "content-type": contentType }),
      body: (async function* () {})(),
      signal: new AbortController().signal,
      contextValues: createContextValues(),
    };
    return decodeOnce(
      {
        inner,
        req,
        header: (length) => {
          const h = new Headers(req.header);
          if (length !== undefined) h.set("content-length", String(length));
          return h;
        },
        refuse: (err) => {
          seen.refused.push(err);
          return Promise.resolve({ status: 400 });
        },
        envelope: (e) => toConnectError(e, silentLogger, procedure),
      },
      msg,
    );
  };
  return { seen, call };
}

/**
 * What a body starts with (its first chunk, or the value itself), and the
 * body to pass on: that chunk again, then the rest as the library asks.
 */
async function peek(body: AsyncIterable<Uint8Array> | JsonValue) {
  if (body === null || typeof body !== "object" || !(Symbol.asyncIterator in body)) return { first: body, body };
  const it = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  let head: IteratorResult<Uint8Array>;
  try {
    head = await it.next();
  } catch (err) {
    const failing: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(err) }) };
    return { first: "failing" as const, body: failing };
  }
  const again: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => {
      let given = false;
      return { next: () => (given ? it.next() : ((given = true), Promise.resolve(head))) };
    },
  };
  return { first: head.done ? new Uint8Array(0) : head.value, body: again };
}

const json = (text: string) => new TextEncoder().encode(text);

describe("a body the library decodes", () => {
  it("JSON: handed on as it came, once, and the method reads it", async () => {
    const { seen, call } = harness("GetMemory");
    const bytes = json('{"id":"abc"}');
    const res = await call("application/json", { bytes, binary: false });
    expect(res.status).toBe(200);
    expect(seen.bodies).toEqual([bytes]);
    expect(seen.bodies[0]).toBe(bytes);
    expect(seen.ids).toEqual(["abc"]);
    expect(seen.refused).toEqual([]);
  });

  it("binary: the same", async () => {
    const { seen, call } = harness("GetMemory");
    const bytes = toBinary(GetMemoryRequestSchema, create(GetMemoryRequestSchema, { id: "abc" }));
    expect((await call("application/proto", { bytes, binary: true })).status).toBe(200);
    expect(seen.bodies[0]).toBe(bytes);
    expect(seen.ids).toEqual(["abc"]);
  });

  it("JSON with a count: parsed once for its spelling and handed on parsed", async () => {
    const { seen, call } = harness("SearchMemories");
    expect((await call("application/json", { bytes: json('{"query":"q","k":"5"}'), binary: false })).status).toBe(200);
    expect(seen.bodies).toEqual([{ query: "q", k: "5" }]);
    expect(seen.ks).toEqual([5n]);
  });

  it("gRPC: the end of the body is asked for only after the message decoded", async () => {
    const { seen, call } = harness("GetMemory");
    let asked = 0;
    const rest = () => {
      asked++;
      return Promise.resolve(undefined);
    };
    await call("application/grpc+json", { bytes: json('{"id":"abc"}'), binary: false, rest });
    expect({ asked, ids: seen.ids }).toEqual({ asked: 1, ids: ["abc"] });
  });
});

describe("a body the library refuses", () => {
  it("an unknown key: the library's decode refuses it, then the diagnosis names it; the method never runs", async () => {
    const { seen, call } = harness("GetMemory");
    await call("application/json", { bytes: json('{"id":"abc","secret":"s3cr3t"}'), binary: false });
    expect(seen.bodies).toHaveLength(1);
    expect(seen.ids).toEqual([]);
    expect(seen.refused.map((e) => e.rawMessage)).toEqual(["field=secret hint=not_applicable: secret is not an argument of GetMemory"]);
  });

  it("a key sent twice: refused by the library, read as its last value and handed on again", async () => {
    const { seen, call } = harness("GetMemory");
    expect((await call("application/json", { bytes: json('{"id":"first","id":"last"}'), binary: false })).status).toBe(200);
    expect(seen.bodies).toHaveLength(2);
    expect(seen.ids).toEqual(["last"]);
  });

  it("a count spelled as the core does not read it never reaches the library", async () => {
    const { seen, call } = harness("SearchMemories");
    await call("application/json", { bytes: json('{"query":"q","k":"0x10"}'), binary: false });
    expect(seen.bodies).toEqual([]);
    expect(seen.refused.map((e) => e.rawMessage)).toEqual(["field=k hint=format: k must be a non-negative integer"]);
  });

  it("gRPC: a message that does not decode is answered without waiting for the end of the body", async () => {
    const { seen, call } = harness("GetMemory");
    let asked = 0;
    const rest = () => {
      asked++;
      return new Promise<undefined>(() => {});
    };
    await call("application/grpc", { bytes: new Uint8Array([0x07]), binary: true, rest });
    expect({ asked, ids: seen.ids }).toEqual({ asked: 0, ids: [] });
    expect(seen.refused.map((e) => e.rawMessage)).toEqual(["field=request hint=format: the body is not a valid engram.v1.GetMemoryRequest"]);
  });
});
