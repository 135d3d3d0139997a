import type { ServerResponse } from "node:http";

/** Seconds since `startedAt`, as Qdrant reports processing time in every envelope. */
const elapsed = (startedAt: bigint): number => Number(process.hrtime.bigint() - startedAt) / 1e9;

export function sendResult(res: ServerResponse, startedAt: bigint, result: unknown): void {
  sendJson(res, 200, { result, status: "ok", time: elapsed(startedAt) });
}

export function sendError(
  res: ServerResponse,
  startedAt: bigint,
  httpStatus: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendJson(res, httpStatus, { status: { error: message }, time: elapsed(startedAt) }, headers);
}

export function sendJson(
  res: ServerResponse,
  httpStatus: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(httpStatus, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
