/**
 * The request and response a route handles, on HTTP/1.1 or on HTTP/2's
 * compatibility API: the listener, the Connect handler and the MCP handler all
 * speak these, and none of them needs another's module to name them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";

export type AnyRequest = IncomingMessage | Http2ServerRequest;
export type AnyResponse = ServerResponse | Http2ServerResponse;
export type Handler = (req: AnyRequest, res: AnyResponse) => void;
