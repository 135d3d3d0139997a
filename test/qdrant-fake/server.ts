import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { sendError, sendJson, sendResult } from "./envelope.js";
import { FakeQdrantError } from "./fake-error.js";
import { FakeState } from "./fake-state.js";
import { FaultInjector, OUT_OF_DISK_MESSAGE, type Fault } from "./faults.js";
import { HoldRegistry } from "./holds.js";
import { OpenApiRequestValidator, type SchemaViolation } from "./openapi-validator.js";
import type { RequestInfo } from "./request-info.js";
import { matchRoute } from "./routes.js";

export interface QdrantFakeOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** What `GET /` reports; default "1.17.1". */
  readonly version?: string;
  /** When set, every request must carry it as `api-key` (or a bearer token). */
  readonly apiKey?: string;
  /** Folder holding `openapi-v1.17.x.json` and `openapi-v1.19.x.json`; default: the workspace's. */
  readonly schemaDir?: string;
  /** Where the one "validation skipped" line goes; default console.warn. */
  readonly warn?: (line: string) => void;
}

export interface RecordedRequest extends RequestInfo {
  /** HTTP status answered, or undefined while pending / when the socket was dropped. */
  status?: number;
}

export interface QdrantFake {
  readonly url: string;
  readonly port: number;
  readonly version: string;
  readonly state: FakeState;
  readonly faults: FaultInjector;
  readonly holds: HoldRegistry;
  /** Every routed request in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Every request that did not satisfy Qdrant's published schema (each one was answered 400). */
  readonly schemaViolations: readonly SchemaViolation[];
  /** Why schema validation is off, when it is (the schema folder is absent). */
  readonly validationSkipped?: string;
  /** Stops accepting connections and drops open ones: clients see a refused connection. */
  refuseConnections(): Promise<void>;
  /** Listens again on the same port. */
  acceptConnections(): Promise<void>;
  close(): Promise<void>;
}

const RATE_LIMIT_MESSAGE = (s: number) =>
  `Rate limiting exceeded: Write rate limit exceeded: Operation requires 1 tokens but only 0 were available. Retry after ${s}s`;

const READ_ONLY_MESSAGE = "Forbidden: Collection is read-only";

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const listen = (server: Server, port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });

// One line per process is loud enough; every fake started after it would only repeat it.
let warnedSkip = false;

/** Starts a loopback Qdrant fake. See index.ts for what it reproduces and what it cannot. */
export async function startQdrantFake(options: QdrantFakeOptions = {}): Promise<QdrantFake> {
  const version = options.version ?? "1.17.1";
  const state = new FakeState();
  const faults = new FaultInjector();
  const holds = new HoldRegistry();
  const requests: RecordedRequest[] = [];
  const violations: SchemaViolation[] = [];
  const loaded = OpenApiRequestValidator.load(options.schemaDir);
  const validator = loaded instanceof OpenApiRequestValidator ? loaded : undefined;
  const skipped = loaded instanceof OpenApiRequestValidator ? undefined : loaded.skipped;
  // Once per process on the console (a suite starts many fakes); always to a caller's own sink.
  if (skipped && (options.warn !== undefined || !warnedSkip)) {
    if (options.warn === undefined) warnedSkip = true;
    (options.warn ?? console.warn)(`qdrant fake: schema validation SKIPPED: ${skipped}`);
  }
  const sockets = new Set<Socket>();
  let seq = 0;

  const applyFault = (fault: Fault, res: ServerResponse, started: bigint, write: boolean, rec: RecordedRequest): boolean => {
    switch (fault.kind) {
      case "status":
        rec.status = fault.status;
        sendError(res, started, fault.status, fault.message ?? "Service internal error: injected fault");
        return true;
      case "rate-limited":
        rec.status = 429;
        sendError(res, started, 429, RATE_LIMIT_MESSAGE(fault.retryAfterSeconds), {
          "retry-after": String(fault.retryAfterSeconds),
        });
        return true;
      case "out-of-disk":
        if (!write) return false;
        rec.status = 500;
        sendError(res, started, 500, OUT_OF_DISK_MESSAGE);
        return true;
      case "read-only":
        if (!write) return false;
        rec.status = 403;
        sendError(res, started, 403, fault.message ?? READ_ONLY_MESSAGE);
        return true;
      case "hang":
        return true;
      case "reset":
        res.socket?.destroy();
        return true;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = process.hrtime.bigint();
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = (req.method ?? "GET").toUpperCase();
    const text = await readBody(req);
    const matched = matchRoute(method, url.pathname);
    if (!matched) {
      res.writeHead(404, { "content-length": 0 });
      res.end();
      return;
    }
    let body: unknown;
    if (text.trim() !== "") {
      try {
        body = JSON.parse(text);
      } catch (e) {
        sendError(res, started, 400, `Format error in JSON body: ${(e as Error).message}`);
        return;
      }
    }
    const rec: RecordedRequest = {
      seq: ++seq,
      method,
      path: url.pathname,
      route: matched.route.route,
      operation: matched.route.operation,
      collection: matched.params.collection_name,
      query: url.searchParams,
      body,
      headers: req.headers,
    };
    requests.push(rec);

    if (options.apiKey !== undefined) {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (req.headers["api-key"] !== options.apiKey && bearer !== options.apiKey) {
        rec.status = 401;
        sendError(res, started, 401, "Must provide an API key or an Authorization bearer token");
        return;
      }
    }
    if (validator) {
      const found = validator.check(method, matched.route.route, url.searchParams, body);
      if (found.length > 0) {
        violations.push(...found);
        rec.status = 400;
        const where = found[0]!.where === "query" ? "Query deserialize error" : "Format error in JSON body";
        sendError(res, started, 400, `${where}: ${found.map((v) => `[${v.schema}] ${v.message}`).join(" | ")}`);
        return;
      }
    }
    const fault = faults.take(rec);
    if (fault && applyFault(fault, res, started, matched.route.write, rec)) return;

    await holds.pass(rec, "before-apply");
    let result: unknown;
    let error: FakeQdrantError | undefined;
    try {
      result = matched.route.handle({
        state,
        params: matched.params,
        query: url.searchParams,
        body: (body ?? {}) as Record<string, unknown>,
        version,
      });
    } catch (e) {
      if (!(e instanceof FakeQdrantError)) throw e;
      error = e;
    }
    await holds.pass(rec, "before-response");
    if (error) {
      rec.status = error.httpStatus;
      sendError(res, started, error.httpStatus, error.message, error.headers);
    } else {
      rec.status = 200;
      if (!matched.route.bare) sendResult(res, started, result);
      else if (typeof result === "string") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(result);
      } else sendJson(res, 200, result);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendError(res, process.hrtime.bigint(), 500, `Service internal error: ${(e as Error).message}`);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await listen(server, options.port ?? 0);
  const port = (server.address() as AddressInfo).port;

  const dropAll = () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      dropAll();
    });

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    version,
    state,
    faults,
    holds,
    requests,
    schemaViolations: violations,
    validationSkipped: skipped,
    refuseConnections: stop,
    acceptConnections: () => (server.listening ? Promise.resolve() : listen(server, port)),
    close: async () => {
      holds.releaseAll();
      await stop();
    },
  };
}
