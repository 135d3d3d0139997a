import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { EngramService } from "../gen/engram/v1/engram_pb.js";
import { csrfToken, sessionEnded, token } from "./session.js";

/**
 * The credential is read per call, so signing in or out needs no new client:
 * a bearer token when there is one, else the issuer session's cookie (sent by
 * the browser) with its CSRF token in the header.
 */
const bearer: Interceptor = (next) => async (req) => {
  const t = token();
  const csrf = csrfToken();
  if (t !== "") req.header.set("authorization", `Bearer ${t}`);
  else if (csrf !== undefined) req.header.set("x-csrf-token", csrf);
  try {
    return await next(req);
  } catch (err) {
    // A session the server no longer honours: back to sign-in, not a bearer-token error on a page.
    if (t === "" && csrf !== undefined && err instanceof ConnectError && err.code === Code.Unauthenticated) sessionEnded();
    throw err;
  }
};

/**
 * The generated client over the Connect protocol (JSON), against the origin
 * that served the page: the same service, auth, Origin check and limits as
 * any other client. No second API.
 */
export const engram: Client<typeof EngramService> = createClient(
  EngramService,
  createConnectTransport({ baseUrl: location.origin, useBinaryFormat: false, interceptors: [bearer] }),
);
