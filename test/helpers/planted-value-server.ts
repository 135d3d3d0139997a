/**
 * What connect-request-bodies and connect-responses share: each starts one real server
 * (Connect + MCP on a loopback port) that takes one bearer, and plants one
 * value that no wire and no log line may repeat.
 */
import { runningEngram, type RunningEngram } from "../fixtures/mcp-harness.js";
import { grpcFrame } from "./raw-rpc.js";

export const TOKEN = "tok-surface-edges";
export const AUTH = { authorization: `Bearer ${TOKEN}` };
/** In every planted value and every name that must not be repeated. */
export const PLANT = "ZZPLANT";
export const WRITE = { content: `the content ${PLANT}`, scope: "project:edges", source: "user-said", category: "decision" };

export function jsonBody(v: unknown, framed: boolean): Buffer {
  const b = Buffer.from(JSON.stringify(v));
  return framed ? grpcFrame(b) : b;
}

/** A server on the store under test whose one caller, alice, holds TOKEN. */
export function startEdgesServer(): Promise<RunningEngram> {
  return runningEngram({ ENGRAM_AUTH_TOKENS: `alice=${TOKEN}` });
}
