import { Code } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";

/** Which surface a request came in on. The CLI is a client of the Connect lane, so it has none of its own. */
export type Lane = "connect" | "mcp";

/**
 * One finished request, as the access log and the request metrics see it.
 * Only derived facts: the procedure or tool name, the code, how long it took,
 * who asked (the owner name the token maps to, never the token) and, for a
 * rejection, the hint it carried. Never a request or response value.
 */
export type RequestOutcome = {
  lane: Lane;
  /** The Connect method's name or the MCP tool's name. */
  procedure: string;
  code: Code | "ok";
  durationMs: number;
  owner: string | undefined;
  hint?: string;
};

export type RequestObserver = (outcome: RequestOutcome) => void;

/** The code as the wire spells it: "ok", "invalid_argument", "resource_exhausted". */
export function codeLabel(code: Code | "ok"): string {
  return code === "ok" ? "ok" : codeToString(code);
}
